/**
 * The uploads of the page (they go on while the operator browses elsewhere in it): started
 * with useUploads().start, shown by <Uploads>, one line per file with its progress and, when
 * it failed, the API's reason.
 */
import { useCallback, useReducer, useRef } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { formatBytes } from './format';
import type { Gathered } from './gather';
import type { ScopeName } from './paths';
import { itemsFor, runUpload, type UploadItem } from './upload-run';

/** Lines drawn at most; the count says how many more there are. */
const SHOWN = 400;
/** Progress events come fast: the panel redraws at most this often (ms). */
const REDRAW_EVERY = 80;

export interface Uploads {
  items: readonly UploadItem[];
  start: (scope: ScopeName, dir: string, gathered: Gathered, existing: ReadonlySet<string>) => void;
  clearFinished: () => void;
}

export function useUploads(): Uploads {
  const items = useRef<UploadItem[]>([]);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const pending = useRef<ReturnType<typeof setTimeout> | null>(null);
  const queries = useQueryClient();
  const changed = useCallback(() => {
    pending.current ??= setTimeout(() => {
      pending.current = null;
      redraw(undefined);
    }, REDRAW_EVERY);
  }, []);
  const start = useCallback(
    (scope: ScopeName, dir: string, gathered: Gathered, existing: ReadonlySet<string>) => {
      const run = itemsFor(scope, dir, gathered);
      items.current = [...items.current, ...run];
      redraw(undefined);
      void runUpload(scope, dir, gathered, run, existing, changed).finally(() => {
        changed();
        void queries.invalidateQueries({ queryKey: ['files', scope] });
      });
    },
    [changed, queries],
  );
  const clearFinished = useCallback(() => {
    items.current = items.current.filter((i) => i.state === 'waiting' || i.state === 'uploading');
    redraw(undefined);
  }, []);
  return { items: items.current, start, clearFinished };
}

const STATE_TEXT = { waiting: 'Waiting', uploading: 'Uploading', done: 'Uploaded', failed: 'Failed' } as const;

export function UploadPanel({ uploads }: { uploads: Uploads }) {
  const { items } = uploads;
  if (items.length === 0) return null;
  const done = items.filter((i) => i.state === 'done').length;
  const failed = items.filter((i) => i.state === 'failed').length;
  const busy = items.length - done - failed;
  return (
    <section class="fm-uploads" aria-label="Uploads">
      <div class="fm-uploads-head">
        <h2>Uploads</h2>
        <span role="status">
          {done} of {items.length} uploaded{failed ? `, ${failed} failed` : ''}
          {busy ? '' : ' — finished'}
        </span>
        <button type="button" class="fm-secondary" disabled={busy === items.length} onClick={uploads.clearFinished}>
          Clear finished
        </button>
      </div>
      <ul>
        {items.slice(0, SHOWN).map((item) => (
          <li key={item.id} class="fm-upload" data-state={item.state}>
            <span class="fm-upload-path" title={`${item.scope}/${item.path}`}>
              {item.path}
            </span>
            <progress max={Math.max(item.size, 1)} value={item.state === 'done' ? Math.max(item.size, 1) : item.sent} aria-label={`Progress of ${item.path}`} />
            <span class="fm-upload-state">
              {STATE_TEXT[item.state]}
              {item.state === 'uploading' && item.size > 0 ? ` ${Math.floor((item.sent / item.size) * 100)}%` : ''}
              {item.state === 'done' ? ` (${formatBytes(item.size)})` : ''}
            </span>
            {item.message && (
              <p class="error fm-upload-error" role="alert">
                {item.message}
              </p>
            )}
          </li>
        ))}
      </ul>
      {items.length > SHOWN && <p class="notice">…and {items.length - SHOWN} more.</p>}
    </section>
  );
}

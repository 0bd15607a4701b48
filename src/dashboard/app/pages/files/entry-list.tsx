/**
 * A folder's entries as a virtualised list (../../virtual-rows.ts): a folder of 5,000 entries renders
 * only the rows in view. A folder's name opens it, a file's opens it in the editor (both are
 * links to the page's own address, so Back and a new tab work); a file has Download, and in a
 * writable scope every entry has Delete.
 */
import { useEffect, useRef } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { formatBytes, formatDate } from './format';
import { Icon } from './icons';
import { pageHref, type ScopeName } from './paths';
import type { FileEntry } from './requests';
import { useVirtualRows } from '../../virtual-rows';

/** One row's height in px, at every width (files.css gives .fm-row this height). */
const ROW_HEIGHT = 52;

interface Props {
  scope: ScopeName;
  entries: readonly FileEntry[];
  /** Changes when the list shown is another one (a new search): the list scrolls back to its top. */
  resetKey: string;
  writable: boolean;
  onDownload: (entry: FileEntry) => void;
  onDelete: (entry: FileEntry) => void;
}

export function EntryList({ scope, entries, resetKey, writable, onDownload, onDelete }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const virtual = useVirtualRows(entries.length, scroller, ROW_HEIGHT);
  // Straight on the element: the virtualizer follows the scroll event it makes.
  useEffect(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [resetKey]);
  return (
    <div class="fm-table">
      <div class="fm-head" aria-hidden="true">
        <span />
        <span>Name</span>
        <span>Size</span>
        <span>Modified</span>
        <span />
      </div>
      <div class="fm-scroll" ref={scroller} data-testid="file-list">
        <ul class="fm-rows" aria-label="Entries" style={{ height: `${virtual.getTotalSize()}px` }}>
          {virtual.getVirtualItems().map((item) => {
            const entry = entries[item.index]!;
            const href = entry.isDirectory ? pageHref({ scope, path: entry.path }) : pageHref({ scope, file: entry.path });
            return (
              <li key={entry.path} class="fm-row" aria-setsize={entries.length} aria-posinset={item.index + 1} style={{ transform: `translateY(${item.start}px)` }}>
                <Icon name={entry.isDirectory ? 'folder' : 'file'} />
                <Link href={href} class="fm-name" title={entry.name}>
                  {entry.name}
                </Link>
                <span class="fm-size">{entry.isDirectory ? 'Folder' : formatBytes(entry.size)}</span>
                <span class="fm-date">{formatDate(entry.lastModified)}</span>
                <span class="fm-row-actions">
                  {!entry.isDirectory && (
                    <button type="button" class="fm-icon-button" aria-label={`Download ${entry.name}`} title="Download" onClick={() => onDownload(entry)}>
                      <Icon name="download" />
                    </button>
                  )}
                  {writable && (
                    <button type="button" class="fm-icon-button fm-danger" aria-label={`Delete ${entry.name}`} title="Delete" onClick={() => onDelete(entry)}>
                      <Icon name="trash" />
                    </button>
                  )}
                </span>
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}

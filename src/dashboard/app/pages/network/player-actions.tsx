/**
 * Send a player to a server, or kick them off the network, through the proxies (POST
 * /api/players/{name}/send {targetService}, POST /api/players/{name}/kick {reason}). Each opens the
 * browser's own modal <dialog> (focus kept inside, Escape closes it, focus goes back to the
 * button that opened it); the controller's answer is shown in its own words, a refusal (503
 * PROXY_NOT_AVAILABLE when no proxy is READY, 404 when the target is gone…) as an alert.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useMutation } from '@tanstack/preact-query';
import { api, ApiFailure } from '../../api';
import type { ServiceRow, ViaProxies } from './model';

export interface PlayerAction {
  kind: 'send' | 'kick';
  name: string;
  /** The server the player is on ('' when not known). */
  service: string;
}

/** What the dialog says of a refusal: the API's words, and its status and code for the record. */
function Refusal({ error }: { error: Error }) {
  const failure = error instanceof ApiFailure ? error : null;
  return (
    <p class="nw-error" role="alert">
      The controller refused: {error.message}
      {failure && (
        <small>
          {' '}
          ({failure.status} {failure.code})
        </small>
      )}
    </p>
  );
}

function through(proxies: readonly string[]): string {
  return proxies.length === 0 ? '' : ` (through ${proxies.join(', ')})`;
}

interface DialogProps {
  action: PlayerAction;
  /** READY backends a player may be sent to; null when this sign-in cannot list services (a name is typed instead). */
  targets: readonly ServiceRow[] | null;
  /** The players on each server now (the live list's count: the services list's lags behind). */
  onlineOn: ReadonlyMap<string, number>;
  onClose: () => void;
}

export function PlayerActionDialog({ action, targets, onlineOn, onClose }: DialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opener = useRef<Element | null>(null);
  const [typed, setTarget] = useState('');
  // Until one is chosen: the first server other than the player's own.
  const target = typed !== '' || targets === null ? typed : (targets.find((t) => t.name !== action.service)?.name ?? targets[0]?.name ?? '');
  const [reason, setReason] = useState('');
  const run = useMutation({
    mutationFn: () => {
      const path = `/api/players/${encodeURIComponent(action.name)}/${action.kind}`;
      return api<ViaProxies>(path, { method: 'POST', json: action.kind === 'send' ? { targetService: target.trim() } : { reason: reason.trim() } });
    },
  });

  useEffect(() => {
    opener.current = document.activeElement;
    const d = dialog.current;
    if (d && !d.open) d.showModal();
    return () => {
      d?.close();
      // Back to the button that opened it, when it is still there (a virtual row may have gone).
      const back = opener.current;
      if (back instanceof HTMLElement && back.isConnected) back.focus();
    };
  }, []);

  const title = action.kind === 'send' ? `Send ${action.name}` : `Kick ${action.name}`;
  const where = action.service === '' ? '' : ` is on ${action.service}`;
  const done = run.isSuccess;
  return (
    <dialog
      ref={dialog}
      class="nw-dialog"
      aria-labelledby="nw-dialog-title"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <form
        class="nw-dialog-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (!run.isPending) run.mutate();
        }}
      >
        <h2 id="nw-dialog-title">{title}</h2>
        {action.kind === 'send' ? (
          <>
            <p class="nw-muted">
              {action.name}
              {where || ' is online'}. The proxies move them to the server you choose.
            </p>
            {targets === null ? (
              <label class="nw-field">
                <span>Target server</span>
                <input required maxLength={128} value={target} onInput={(e) => setTarget(e.currentTarget.value)} />
              </label>
            ) : targets.length === 0 ? (
              <p class="nw-error" role="alert">
                No server is READY to receive players.
              </p>
            ) : (
              <label class="nw-field">
                <span>Target server</span>
                <select required value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
                  {targets.map((t) => (
                    <option key={t.name} value={t.name}>
                      {t.name} ({t.groupName}, {onlineOn.get(t.name) ?? 0} online){t.name === action.service ? ' — current' : ''}
                    </option>
                  ))}
                </select>
              </label>
            )}
          </>
        ) : (
          <>
            <p class="nw-muted">
              {action.name}
              {where || ' is online'}. The proxies disconnect them from the network; they may join again.
            </p>
            <label class="nw-field">
              <span>Reason (shown to the player)</span>
              <input maxLength={256} value={reason} placeholder="optional" onInput={(e) => setReason(e.currentTarget.value)} />
            </label>
          </>
        )}
        {run.isError && <Refusal error={run.error} />}
        {done && (
          <p class="nw-ok" role="status">
            {run.data.message}
            {through(run.data.proxies)}.
          </p>
        )}
        <div class="nw-dialog-buttons">
          <button type="button" class="nw-secondary" onClick={onClose}>
            {done ? 'Close' : 'Cancel'}
          </button>
          {!done && (
            <button type="submit" class={action.kind === 'kick' ? 'nw-danger' : undefined} disabled={run.isPending || (action.kind === 'send' && target.trim() === '')}>
              {run.isPending ? (action.kind === 'send' ? 'Sending…' : 'Kicking…') : action.kind === 'send' ? 'Send' : 'Kick'}
            </button>
          )}
        </div>
      </form>
    </dialog>
  );
}

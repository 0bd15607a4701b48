/**
 * A message to every READY service of the network or of one group (POST /api/broadcast): the
 * proxies' broadcast command, `say` on backends. Checked here as the route checks it (one line
 * of 1 to 1024 characters) so a too-long message is named before it is sent, not cut short; the
 * controller's answer, or its refusal (no READY service, an unknown group), in its own words.
 */
import { useState } from 'preact/hooks';
import { OutcomeLine, useAction } from '../settings/outcome';
import { broadcast, BROADCAST_MAX } from './requests';

/** Why `message` cannot be sent, or null: the route's own limits. */
export function broadcastProblem(message: string): string | null {
  if (message.trim() === '') return 'Write a message first.';
  if (/[\r\n]/.test(message)) return 'The message must be one line.';
  if (message.length > BROADCAST_MAX) return `The message is ${message.length} characters long; at most ${BROADCAST_MAX} can be sent.`;
  return null;
}

export function Broadcast({ groups }: { groups: readonly string[] }) {
  const [message, setMessage] = useState('');
  const [group, setGroup] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const action = useAction();
  // A group deleted meanwhile falls back to the whole network rather than a stale name.
  const target = group !== '' && groups.includes(group) ? group : null;
  const send = (event: Event) => {
    event.preventDefault();
    const found = broadcastProblem(message);
    setProblem(found);
    if (found) return action.clear();
    void action.run(async () => (await broadcast(message, target)).message);
  };
  const over = message.length > BROADCAST_MAX;
  return (
    <form class="op-card op-form ov-broadcast" aria-labelledby="ov-broadcast" onSubmit={send} noValidate>
      <h2 id="ov-broadcast">Broadcast</h2>
      <p class="op-muted">Sent to every READY service: the broadcast command on proxies, say on game servers.</p>
      <div class="ov-broadcast-fields">
        <div class="op-field ov-message">
          <label for="ov-broadcast-message">Message</label>
          <input
            id="ov-broadcast-message"
            value={message}
            aria-describedby="ov-broadcast-count"
            aria-invalid={problem !== null}
            onInput={(e) => {
              setMessage((e.target as HTMLInputElement).value);
              setProblem(null);
            }}
          />
          <small id="ov-broadcast-count" class={over ? 'ov-over' : undefined}>
            {message.length} of {BROADCAST_MAX} characters
          </small>
        </div>
        <div class="op-field ov-target">
          <label for="ov-broadcast-group">Send to</label>
          <select id="ov-broadcast-group" value={target ?? ''} onChange={(e) => setGroup((e.target as HTMLSelectElement).value)}>
            <option value="">All groups</option>
            {groups.map((name) => (
              <option key={name} value={name}>
                Group {name}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="op-actions">
        <button type="submit" disabled={action.busy}>
          Send broadcast
        </button>
      </div>
      {problem && (
        <p role="alert" class="op-error">
          {problem}
        </p>
      )}
      <OutcomeLine outcome={action.outcome} />
    </form>
  );
}

/**
 * The signed-in player's dashboard sessions (GET /api/auth/my-sessions), newest first, this one
 * marked; any other can be logged out, or all of them at once. Logging out this very session is
 * the shell's Sign out.
 */
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { LoadFailure, OutcomeLine, useAction } from '../settings/outcome';

interface SessionSummary {
  sessionId: string;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number;
  ip: string | null;
  userAgent: string | null;
  loginMethod: 'code' | 'magic_link' | 'passkey';
}

const KEY = ['profile', 'sessions'] as const;
const METHOD = { code: 'login code', magic_link: 'magic link', passkey: 'passkey' } as const;
const when = (ms: number) => new Date(ms).toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'short' });

export function Sessions() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: KEY, queryFn: () => api<{ sessions: SessionSummary[]; currentSessionId: string }>('/api/auth/my-sessions') });
  const action = useAction();
  const reload = () => void queries.invalidateQueries({ queryKey: KEY });
  const others = list.data ? list.data.sessions.filter((s) => s.sessionId !== list.data.currentSessionId).length : 0;
  return (
    <section class="op-card" aria-labelledby="pr-sessions">
      <h2 id="pr-sessions">Sessions</h2>
      {list.isPending && <p>Loading…</p>}
      {list.isError && <LoadFailure error={list.error} />}
      {list.data && (
        <>
          <table class="stack pr-sessions">
            <thead>
              <tr><th>Signed in</th><th>Last used</th><th>Expires</th><th>From</th><th>By</th><th /></tr>
            </thead>
            <tbody>
              {list.data.sessions.map((s) => (
                <tr key={s.sessionId}>
                  <td data-label="Signed in">{when(s.createdAt)}</td>
                  <td data-label="Last used">{when(s.lastUsedAt)}</td>
                  <td data-label="Expires">{when(s.expiresAt)}</td>
                  <td data-label="From">{[s.ip, s.userAgent].filter(Boolean).join(' · ') || '—'}</td>
                  <td data-label="By">{METHOD[s.loginMethod]}</td>
                  <td>
                    {s.sessionId === list.data.currentSessionId ? (
                      <span class="op-pill op-pill-good">this session</span>
                    ) : (
                      <button
                        type="button"
                        class="op-secondary"
                        disabled={action.busy}
                        onClick={() =>
                          void action.run(async () => {
                            await api(`/api/auth/my-sessions/${s.sessionId}`, { method: 'DELETE' });
                            reload();
                            return 'That session is logged out.';
                          })
                        }
                      >
                        Log out
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div class="op-actions">
            <button
              type="button"
              class="op-secondary"
              disabled={action.busy || others === 0}
              onClick={() =>
                void action.run(async () => {
                  const { revoked } = await api<{ revoked: number }>('/api/auth/my-sessions/revoke-others', { method: 'POST' });
                  reload();
                  return `${revoked} other session(s) logged out.`;
                })
              }
            >
              Log out every other session
            </button>
          </div>
          <OutcomeLine outcome={action.outcome} />
        </>
      )}
    </section>
  );
}

/**
 * Two-factor codes (TOTP) for the signed-in player: enrol (a secret for the authenticator app and
 * ten recovery codes, shown once), confirm with a first code, or switch off with a code or a
 * recovery code. The API limits wrong codes (429) and says so; the refusal is shown as it comes.
 */
import { useState } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { LoadFailure, OutcomeLine, useAction } from '../settings/outcome';

interface TotpStatus {
  enabled: boolean;
  pendingEnrollment: boolean;
  recoveryCodesRemaining: number;
}
interface Enrolment {
  secret: string;
  otpauthUri: string;
  recoveryCodes: string[];
}

const KEY = ['profile', 'totp'] as const;

export function Totp() {
  const queries = useQueryClient();
  const status = useQuery({ queryKey: KEY, queryFn: () => api<TotpStatus>('/api/profile/totp/status') });
  const [enrolment, setEnrolment] = useState<Enrolment | null>(null);
  const [code, setCode] = useState('');
  const action = useAction();
  const done = (text: string) => {
    setCode('');
    void queries.invalidateQueries({ queryKey: KEY });
    return text;
  };
  const send = (path: 'confirm' | 'disable') => (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const answer = await api<{ message: string }>(`/api/profile/totp/${path}`, { method: 'POST', json: { code: code.trim() } });
      if (path === 'confirm') setEnrolment(null);
      return done(`${answer.message}.`);
    });
  };
  const enrol = () =>
    void action.run(async () => {
      setEnrolment(await api<Enrolment>('/api/profile/totp/enroll', { method: 'POST' }));
      return done('Add the secret to your authenticator app, then enter its code.');
    });
  const s = status.data;
  return (
    <section class="op-card" aria-labelledby="pr-totp">
      <h2 id="pr-totp">
        Two-factor codes {s && <span class={s.enabled ? 'op-pill op-pill-good' : 'op-pill'}>{s.enabled ? 'on' : s.pendingEnrollment ? 'waiting for a first code' : 'off'}</span>}
      </h2>
      {status.isPending && <p>Loading…</p>}
      {status.isError && <LoadFailure error={status.error} />}
      {s && !s.enabled && !enrolment && (
        <div class="op-actions">
          <button type="button" disabled={action.busy} onClick={enrol}>
            {s.pendingEnrollment ? 'Start again' : 'Set up two-factor codes'}
          </button>
        </div>
      )}
      {enrolment && (
        <div class="pr-enrolment">
          <p>
            Secret for your authenticator app: <code class="pr-secret">{enrolment.secret}</code>
          </p>
          <p class="op-muted">
            Or open <a href={enrolment.otpauthUri}>this otpauth link</a> on the phone that holds the app.
          </p>
          <p>Recovery codes, each usable once in place of a code: keep them somewhere safe, they are not shown again.</p>
          <ul class="pr-codes" aria-label="Recovery codes">
            {enrolment.recoveryCodes.map((c) => (
              <li key={c}><code>{c}</code></li>
            ))}
          </ul>
        </div>
      )}
      {s && (s.enabled || s.pendingEnrollment || enrolment) && (
        <form class="op-inline" aria-label={s.enabled ? 'Switch two-factor codes off' : 'Confirm two-factor codes'} onSubmit={send(s.enabled ? 'disable' : 'confirm')}>
          <label for="pr-code">{s.enabled ? 'A code or a recovery code' : 'The code your app shows'}</label>
          <input id="pr-code" required autocomplete="one-time-code" maxLength={64} value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
          <button type="submit" class={s.enabled ? 'op-danger' : ''} disabled={action.busy}>
            {s.enabled ? 'Switch off' : 'Confirm'}
          </button>
        </form>
      )}
      {s?.enabled && <p class="op-muted">{s.recoveryCodesRemaining} recovery code(s) left.</p>}
      <OutcomeLine outcome={action.outcome} />
    </section>
  );
}

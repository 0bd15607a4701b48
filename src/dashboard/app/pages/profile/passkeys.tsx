/**
 * The signed-in player's passkeys: listed, removed, and a new one registered through the
 * browser's WebAuthn (the controller's options parsed with parseCreationOptionsFromJSON, the
 * credential sent back as its toJSON()). Passkeys turned off on the controller (404
 * AUTH_DISABLED) are said so in place of the list.
 */
import { useState } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { api, ApiFailure } from '../../api';
import { LoadFailure, OutcomeLine, useAction } from '../settings/outcome';

interface Passkey {
  credentialId: string;
  label: string;
  createdAt: number;
  lastUsedAt: number | null;
}
interface Ceremony {
  ceremonyId: string;
  publicKeyOptionsJson: { publicKey: Record<string, unknown> };
}
/** The JSON forms of WebAuthn (recent browsers); absent elsewhere. */
interface WebAuthnJson {
  parseCreationOptionsFromJSON?(options: Record<string, unknown>): PublicKeyCredentialCreationOptions;
}

const KEY = ['profile', 'passkeys'] as const;

export function Passkeys() {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: KEY, queryFn: () => api<{ credentials: Passkey[] }>('/api/auth/passkey/credentials') });
  const [label, setLabel] = useState('');
  const action = useAction();
  const reload = () => void queries.invalidateQueries({ queryKey: KEY });
  const off = list.error instanceof ApiFailure && list.error.code === 'AUTH_DISABLED';
  const json = (typeof PublicKeyCredential === 'undefined' ? undefined : PublicKeyCredential) as unknown as WebAuthnJson | undefined;

  const register = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      if (!json?.parseCreationOptionsFromJSON) return Promise.reject(new Error('This browser cannot create passkeys.'));
      const ceremony = await api<Ceremony>('/api/auth/passkey/register/start', { method: 'POST', json: { label: label.trim() } });
      const credential = (await navigator.credentials.create({ publicKey: json.parseCreationOptionsFromJSON(ceremony.publicKeyOptionsJson.publicKey) })) as (Credential & { toJSON(): unknown }) | null;
      if (!credential) throw new Error('No passkey was created.');
      await api('/api/auth/passkey/register/finish', { method: 'POST', json: { ceremonyId: ceremony.ceremonyId, responseJson: credential.toJSON(), label: label.trim() } });
      setLabel('');
      reload();
      return 'Passkey added.';
    });
  };

  return (
    <section class="op-card" aria-labelledby="pr-passkeys">
      <h2 id="pr-passkeys">Passkeys</h2>
      {list.isPending && <p>Loading…</p>}
      {off && <p class="op-muted">Passkeys are turned off on this controller.</p>}
      {list.isError && !off && <LoadFailure error={list.error} />}
      {list.data && (
        <>
          {list.data.credentials.length === 0 && <p class="op-muted">No passkey yet.</p>}
          <ul class="pr-passkeys">
            {list.data.credentials.map((p) => (
              <li key={p.credentialId}>
                <span>
                  <strong>{p.label}</strong>
                  <small>
                    added {new Date(p.createdAt).toLocaleString()}, {p.lastUsedAt ? `last used ${new Date(p.lastUsedAt).toLocaleString()}` : 'never used'}
                  </small>
                </span>
                <button
                  type="button"
                  class="op-secondary"
                  disabled={action.busy}
                  aria-label={`Remove passkey ${p.label}`}
                  onClick={() =>
                    void action.run(async () => {
                      await api(`/api/auth/passkey/credentials/${encodeURIComponent(p.credentialId)}`, { method: 'DELETE' });
                      reload();
                      return `Passkey ${p.label} removed.`;
                    })
                  }
                >
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <form class="op-inline" aria-label="Add a passkey" onSubmit={register}>
            <label for="pr-passkey-label">Name of the new passkey</label>
            <input id="pr-passkey-label" maxLength={64} placeholder="Passkey" value={label} onInput={(e) => setLabel((e.target as HTMLInputElement).value)} />
            <button type="submit" disabled={action.busy}>
              Add a passkey
            </button>
          </form>
        </>
      )}
      <OutcomeLine outcome={action.outcome} />
    </section>
  );
}

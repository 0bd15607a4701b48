/** The Profile of an API-token sign-in: which token it is, and where sessions and second factors live. */
import type { Identity } from './identity';

export function TokenView({ identity }: { identity: Exclude<Identity, { kind: 'session' }> }) {
  return (
    <section class="op-card" aria-labelledby="pr-who">
      <h2 id="pr-who">Who you are</h2>
      {identity.kind === 'master' && (
        <p>
          Signed in with the <strong>master API token</strong> (<code>[api] token</code>, <code>SVC_API_TOKEN</code> or <code>data/api-token</code>): every route is open to it, and the audit log
          names its actions <code>api:admin</code>.
        </p>
      )}
      {identity.kind === 'service' && (
        <p>
          Signed in with an <strong>API token below admin</strong> (a derived service token or a scoped one): pages that need the admin level answer with a refusal.
        </p>
      )}
      {identity.kind === 'jwt' && (
        <>
          <p>
            Signed in with a <strong>JWT</strong> minted by POST /api/tokens; the audit log names its actions <code>api:jwt:{identity.subject}</code>.
          </p>
          <dl class="pr-facts">
            <div><dt>Subject</dt><dd>{identity.subject}</dd></div>
            <div><dt>Scopes</dt><dd>{identity.scopes.length > 0 ? identity.scopes.join(', ') : 'none'}</dd></div>
            <div><dt>Issued</dt><dd>{identity.issuedAt ? identity.issuedAt.toLocaleString() : '—'}</dd></div>
            <div><dt>Expires</dt><dd>{identity.expiresAt ? identity.expiresAt.toLocaleString() : 'never'}</dd></div>
          </dl>
        </>
      )}
      <p class="pr-note" role="note">
        Sessions, two-factor codes (TOTP) and passkeys belong to game-account sign-ins: a player logs in to the dashboard with a code from the game (the <code>dashboard login</code> command) and manages
        them here. An API token has none of them; to stop it working, change or remove the token.
      </p>
    </section>
  );
}

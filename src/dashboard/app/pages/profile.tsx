import { useQuery } from '@tanstack/preact-query';
import { identify } from './profile/identity';
import { Passkeys } from './profile/passkeys';
import { Sessions } from './profile/sessions';
import { TokenView } from './profile/token-view';
import { Totp } from './profile/totp';
import { LoadFailure } from './settings/outcome';
import './settings/shared.css';
import './profile/profile.css';

/**
 * The Profile page: who the dashboard is signed in as. With an API token (master, scoped or a
 * JWT): which one, and that sessions, TOTP and passkeys belong to game-account sign-ins. With a
 * dashboard session: the player, their sessions, their two-factor codes and their passkeys.
 */
export function Profile() {
  const identity = useQuery({ queryKey: ['profile', 'identity'], queryFn: identify, staleTime: Infinity });
  return (
    <div class="op-page">
      <h1>Profile</h1>
      {identity.isPending && <p>Loading…</p>}
      {identity.isError && <LoadFailure error={identity.error} />}
      {identity.data && identity.data.kind !== 'session' && <TokenView identity={identity.data} />}
      {identity.data?.kind === 'session' && (
        <>
          <section class="op-card" aria-labelledby="pr-who">
            <h2 id="pr-who">Who you are</h2>
            <dl class="pr-facts">
              <div><dt>Player</dt><dd>{identity.data.user.name}</dd></div>
              <div><dt>UUID</dt><dd>{identity.data.user.uuid}</dd></div>
              <div><dt>Role</dt><dd>{identity.data.user.isAdmin ? 'administrator' : `${identity.data.user.permissions.length} permission(s)`}</dd></div>
            </dl>
          </section>
          <Sessions />
          <Totp />
          <Passkeys />
        </>
      )}
    </div>
  );
}

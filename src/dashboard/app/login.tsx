import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, storeToken } from './api';
import { hasFeature } from './login/features';
import { consumeCode, consumeLink, passkeyLogin, sendLink, verifyTotp, type LoginStep } from './login/game-account';

/**
 * What a token pasted into the API token field is: an API token mints a socket ticket from core
 * (GET /api/ws-ticket, for API tokens only); a game account's session token (pasted from
 * another tab) is refused there, and takes its tickets from the auth module instead.
 */
async function kindOf(token: string): Promise<'token' | 'session'> {
  try {
    await api('/api/ws-ticket', { token });
    return 'token';
  } catch (failure) {
    if (failure instanceof ApiFailure && failure.status === 403) return 'session';
    throw failure;
  }
}

const words = (failure: unknown) => (failure instanceof ApiFailure || failure instanceof Error ? failure.message : 'The controller cannot be reached.');

/**
 * The sign-in: with an API token (data/api-token, or a JWT), checked against the API before it
 * is kept; and, when the auth module is installed, with a game account: the code the in-game
 * command gives, a link sent to the player's chat (and `?link=` deep links), a passkey; then
 * the authentication code when the account has TOTP on.
 */
export function Login({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [code, setCode] = useState('');
  const [player, setPlayer] = useState('');
  const [totpCode, setTotpCode] = useState('');
  const [challengeId, setChallengeId] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [info, setInfo] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const gameAccounts = hasFeature('auth');

  const run = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    setInfo(null);
    try {
      await work();
    } catch (failure) {
      setError(words(failure));
    } finally {
      setBusy(false);
    }
  };
  /** A first step's answer: signed in, or the TOTP step next. */
  const stepDone = (step: LoginStep) => {
    if (step.totpRequired) return setChallengeId(step.challengeId);
    storeToken(step.token, 'session');
    onSignedIn();
  };

  // A magic link opens the dashboard with ?link=<token>: spent once, then taken out of the address.
  useEffect(() => {
    const link = new URLSearchParams(location.search).get('link');
    if (!link || !gameAccounts) return;
    history.replaceState(null, '', location.pathname);
    void run(async () => stepDone(await consumeLink(link)));
  }, []);

  const signInWithToken = (event: Event) => {
    event.preventDefault();
    const candidate = token.trim();
    if (candidate === '') return setError('Paste the token from data/api-token.');
    void run(async () => {
      await api('/api/status', { token: candidate });
      storeToken(candidate, await kindOf(candidate));
      onSignedIn();
    });
  };

  if (challengeId) {
    return (
      <main class="login">
        <form class="card" onSubmit={(e) => (e.preventDefault(), void run(async () => (storeToken((await verifyTotp(challengeId, totpCode.trim())).token, 'session'), onSignedIn())))}>
          <h1>svc</h1>
          <p class="notice">This account has two-factor authentication on.</p>
          <label for="totp">Authentication code</label>
          <input id="totp" autocomplete="one-time-code" value={totpCode} onInput={(e) => setTotpCode((e.target as HTMLInputElement).value)} />
          <p class="notice">The 6 digits of your authenticator app, or one of your recovery codes.</p>
          {error && <p class="error" role="alert">{error}</p>}
          <button type="submit" disabled={busy}>Verify</button>
        </form>
      </main>
    );
  }

  return (
    <main class="login">
      <div class="login-forms">
        <form class="card" onSubmit={signInWithToken}>
          <h1>svc</h1>
          {notice && <p class="notice" role="status">{notice}</p>}
          <label for="token">API token</label>
          <input id="token" type="password" autocomplete="current-password" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy}>Sign in</button>
        </form>
        {gameAccounts && (
          <section class="card" aria-label="Game account">
            <h2>With your game account</h2>
            <form onSubmit={(e) => (e.preventDefault(), void run(async () => stepDone(await consumeCode(code.trim()))))}>
              <label for="code">Code</label>
              <input id="code" autocomplete="off" value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />
              <p class="notice">Type the dashboard login command in game for a code.</p>
              <button type="submit" disabled={busy || code.trim() === ''}>Sign in with the code</button>
            </form>
            <form onSubmit={(e) => (e.preventDefault(), void run(async () => setInfo(`A link was sent to ${player.trim()}'s chat: open it within ${(await sendLink(player.trim())).ttlSeconds} s.`)))}>
              <label for="player">Player name</label>
              <input id="player" autocomplete="username" value={player} onInput={(e) => setPlayer((e.target as HTMLInputElement).value)} />
              <button type="submit" disabled={busy || player.trim() === ''}>Send me a link</button>
            </form>
            <button type="button" disabled={busy} onClick={() => void run(async () => stepDone(await passkeyLogin()))}>
              Sign in with a passkey
            </button>
          </section>
        )}
        {info && <p class="notice card" role="status">{info}</p>}
        {error && <p class="error card" role="alert">{error}</p>}
      </div>
    </main>
  );
}

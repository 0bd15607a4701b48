import { useState } from 'preact/hooks';
import { api, ApiFailure, storeToken } from './api';

/**
 * Sign in with an API token (data/api-token, or a JWT): checked against the API before it is
 * kept, so a wrong token is said here and never stored.
 */
export function Login({ notice, onSignedIn }: { notice: string | null; onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    const candidate = token.trim();
    if (candidate === '') return setError('Paste the token from data/api-token.');
    setBusy(true);
    setError(null);
    try {
      await api('/api/status', { token: candidate });
      storeToken(candidate);
      onSignedIn();
    } catch (failure) {
      setError(failure instanceof ApiFailure ? failure.message : 'The controller cannot be reached.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="login">
      <form class="card" onSubmit={submit}>
        <h1>svc</h1>
        {notice && <p class="notice" role="status">{notice}</p>}
        <label for="token">API token</label>
        <input id="token" type="password" autocomplete="current-password" value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} />
        {error && <p class="error" role="alert">{error}</p>}
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

/**
 * The dashboard's one way to the controller's API: same origin, the bearer token the operator
 * signed in with, the spec's error body read into an ApiFailure. A 401 or an expired session
 * signs the operator out (the shell shows the login again, with the reason).
 */
const TOKEN_KEY = 'svc.token';

export interface ApiErrorBody {
  success: false;
  message: string;
  error: string;
}

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type SignedOutListener = (reason: string) => void;
const signedOutListeners = new Set<SignedOutListener>();

export function storedToken(): string | null {
  return localStorage.getItem(TOKEN_KEY);
}

/** How the operator signed in: an API token, or a game account's dashboard session (auth module). */
export type SignInKind = 'token' | 'session';
const KIND_KEY = 'svc.signin';

export function storeToken(token: string, kind: SignInKind = 'token'): void {
  localStorage.setItem(TOKEN_KEY, token);
  localStorage.setItem(KIND_KEY, kind);
}

export function signInKind(): SignInKind {
  return localStorage.getItem(KIND_KEY) === 'session' ? 'session' : 'token';
}

/** Forgets the token and tells the shell why (shown on the login page). */
export function signOut(reason: string): void {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(KIND_KEY);
  for (const listener of signedOutListeners) listener(reason);
}

export function onSignedOut(listener: SignedOutListener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

/** A request to the API; JSON in and out. Throws ApiFailure with the spec's code and message. */
export async function api<T>(path: string, init: { method?: string; json?: unknown; token?: string } = {}): Promise<T> {
  // token '' sends none (the public sign-in routes); undefined sends the stored one.
  const token = init.token ?? storedToken();
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, { method: init.method ?? 'GET', headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
  const text = await response.text();
  const body = text === '' ? undefined : (JSON.parse(text) as unknown);
  if (response.ok) return body as T;
  const failure = body as Partial<ApiErrorBody> | undefined;
  const error = new ApiFailure(response.status, failure?.error ?? 'HTTP_' + response.status, failure?.message ?? response.statusText);
  if (init.token === undefined && (error.code === 'AUTH_FAILED' || error.code === 'AUTH_SESSION_EXPIRED' || error.code === 'AUTH_SESSION_INVALID')) {
    signOut(error.code === 'AUTH_SESSION_EXPIRED' ? 'Your session has expired: sign in again.' : 'You were signed out: sign in again.');
  }
  throw error;
}

import { api } from '../api';

/** What a first sign-in step answers (auth module): a session, or the TOTP step still to take. */
export type LoginStep = { token: string; totpRequired: false; challengeId: null } | { token: null; totpRequired: true; challengeId: string };

export const consumeCode = (challenge: string) => api<LoginStep>('/api/auth/consume-challenge', { method: 'POST', json: { challenge }, token: '' });
export const consumeLink = (token: string) => api<LoginStep>('/api/auth/consume-magic-link', { method: 'POST', json: { token }, token: '' });
export const verifyTotp = (challengeId: string, code: string) => api<{ token: string }>('/api/auth/totp-verify', { method: 'POST', json: { challengeId, code }, token: '' });
export const sendLink = (name: string) => api<{ status: 'delivered'; ttlSeconds: number }>('/api/auth/deliver-magic-link', { method: 'POST', json: { name }, token: '' });

/**
 * A passkey sign-in: the ceremony's options from the controller, the browser's authenticator,
 * its answer back (WebAuthn's JSON forms, which Chromium, Firefox and Safari parse natively).
 */
export async function passkeyLogin(): Promise<LoginStep> {
  const { ceremonyId, publicKeyOptionsJson } = await api<{ ceremonyId: string; publicKeyOptionsJson: { publicKey: unknown } }>('/api/auth/passkey/login/start', { method: 'POST', json: {}, token: '' });
  const parse = (PublicKeyCredential as unknown as { parseRequestOptionsFromJSON?: (json: unknown) => PublicKeyCredentialRequestOptions }).parseRequestOptionsFromJSON;
  if (!parse) throw new Error('this browser cannot use passkeys here: update it');
  const credential = (await navigator.credentials.get({ publicKey: parse(publicKeyOptionsJson.publicKey) })) as (PublicKeyCredential & { toJSON(): unknown }) | null;
  if (!credential) throw new Error('no passkey was chosen');
  return api<LoginStep>('/api/auth/passkey/login/finish', { method: 'POST', json: { ceremonyId, responseJson: credential.toJSON() }, token: '' });
}

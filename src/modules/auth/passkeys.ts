import type { Database } from 'bun:sqlite';
import { randomUUID } from 'node:crypto';
import { Type as T, type TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { normalizeUuid } from '../../core/players/uuid';
import { ApiError } from '../../errors';
import { PasskeyStore, type StoredPasskey } from './passkey-store';
import { acceptsOrigin, type RelyingParty } from './relying-party';
import { monotonicNow, type Clock } from '../../core/time/monotonic';

/** A passkey as the dashboard lists it (the reference's PK record). */
export interface PasskeyView {
  credentialId: string;
  label: string;
  createdAt: number;
  lastUsedAt: number | null;
  /** The authenticator model's AAGUID (UUID form); null when the authenticator does not say (all zeros). */
  aaguid: string | null;
}

export interface PasskeyOptions {
  /** How long a ceremony stays open, and the timeout the browser is given. */
  challengeTtlMs: number;
  maxPerUser: number;
  /** Open ceremonies (registration and login together) beyond which starts are refused. */
  maxOpenCeremonies?: number;
  /** Open ceremonies one client address may hold (login and registration together). */
  maxPerAddress?: number;
  /** Open registration ceremonies one dashboard session may hold. */
  maxPerSession?: number;
}

/** Who opens a ceremony: the client address, and for a registration the session. */
export interface CeremonyCaller {
  ip: string;
  sessionId?: string;
}

export const DEFAULT_PASSKEY_LABEL = 'Passkey';
export const MAX_OPEN_CEREMONIES = 10_000;
/**
 * Per caller, far below the global cap: one address (or one session) can never fill it and
 * lock everyone else out of passkey login. A person needs one ceremony at a time; a few more
 * cover cancelled prompts and several people behind one address.
 */
export const MAX_CEREMONIES_PER_ADDRESS = 20;
export const MAX_CEREMONIES_PER_SESSION = 5;
/** For route bodies: the label a player gives a passkey (blank means the default). */
export const PasskeyLabelSchema = T.String({ maxLength: 64, description: 'name of the passkey in the list; blank means "Passkey"' });

/** `expiresAt` is monotonic ms (core/time/monotonic). */
type Ceremony = (
  | { kind: 'register'; challenge: string; expiresAt: number; uuid: string; label: string }
  | { kind: 'login'; challenge: string; expiresAt: number }
) & {
  /** The caller slots it holds (`ip:<address>`, `session:<id>`), given back when it ends. */
  slots: readonly string[];
};

type Slots = readonly string[];

interface Player {
  uuid: string;
  name: string;
}

const Base64Url = (maxLength: number) => T.String({ minLength: 1, maxLength, pattern: '^[A-Za-z0-9_-]+={0,2}$' });
// WebAuthn caps credential ids at 1023 bytes: 1364 base64url characters.
const CredentialId = Base64Url(1364);
const RegistrationResponseSchema = T.Object({
  id: CredentialId,
  rawId: CredentialId,
  type: T.Literal('public-key'),
  response: T.Object({
    clientDataJSON: Base64Url(16_384),
    attestationObject: Base64Url(65_536),
    transports: T.Optional(T.Array(T.String({ maxLength: 32 }), { maxItems: 16 })),
  }),
});
const AuthenticationResponseSchema = T.Object({
  id: CredentialId,
  rawId: CredentialId,
  type: T.Literal('public-key'),
  response: T.Object({
    clientDataJSON: Base64Url(16_384),
    authenticatorData: Base64Url(16_384),
    signature: Base64Url(1_024),
    userHandle: T.Optional(T.Union([T.String({ maxLength: 256 }), T.Null()])),
  }),
});

type WebAuthnLibrary = typeof import('@simplewebauthn/server');
let library: Promise<WebAuthnLibrary> | undefined;

/**
 * The WebAuthn library, loaded on the first ceremony: it pulls in an X.509 stack (which needs
 * the reflect-metadata polyfill first) that a controller nobody logs into by passkey never needs,
 * so startup stays fast and small.
 */
function webauthn(): Promise<WebAuthnLibrary> {
  library ??= import('reflect-metadata').then(() => import('@simplewebauthn/server'));
  return library;
}

/** clientDataJSON as the browser sent it: base64url of a JSON object. */
function decodeClientData(encoded: string): { challenge?: unknown; origin?: unknown } {
  const value: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (typeof value !== 'object' || value === null) throw new Error('not an object');
  return value as { challenge?: unknown; origin?: unknown };
}

/**
 * Passkey registration, usernameless login and management, on @simplewebauthn/server.
 *
 * Ceremonies live in memory, keyed by a random UUID, and die after `challengeTtlMs`. They are
 * single use: any finish attempt that reaches one consumes it, failed or not (a registration
 * ceremony only when the caller is its owner).
 * At `maxOpenCeremonies` open ones a start is refused with 429 AUTH_RATE_LIMITED (Retry-After:
 * until the oldest expires) rather than dropping the oldest: dropping would let anyone who can
 * call the public login/start silently break other people's ceremonies in progress. So that no
 * one caller can get there, each client address may hold `maxPerAddress` open ceremonies and
 * each session `maxPerSession` registrations; beyond that its own starts are refused with 429
 * RATE_LIMITED (Retry-After: until its oldest ceremony ends). A slot is taken before the options
 * are generated, so parallel starts cannot overshoot a cap.
 *
 * Differences from the reference, on purpose: a registration is finished only by the player who
 * started it; excludeCredentials lists the player's passkeys (so one authenticator is not
 * registered twice); the label given at finish wins over the one given at start; an assertion's
 * userHandle, when present, must be the owner's.
 */
export class PasskeyService {
  private readonly store: PasskeyStore;
  private readonly ceremonies = new Map<string, Ceremony>();
  private readonly maxOpen: number;
  /** Open (and reserved) ceremonies per caller slot. */
  private readonly held = new Map<string, number>();
  /** Starts admitted whose options are still being generated. */
  private reserved = 0;
  private readonly now: Clock;
  private readonly mono: Clock;

  constructor(
    db: Database,
    private readonly rp: RelyingParty,
    private readonly options: PasskeyOptions,
    now?: Clock,
    monotonic?: Clock,
  ) {
    // Stored times (created, last used) are wall-clock; ceremonies live and expire on the monotonic clock.
    this.now = now ?? Date.now;
    this.mono = monotonic ?? now ?? monotonicNow;
    this.store = new PasskeyStore(db);
    this.maxOpen = options.maxOpenCeremonies ?? MAX_OPEN_CEREMONIES;
  }

  async registerStart(user: Player, label?: string, caller?: CeremonyCaller): Promise<{ ceremonyId: string; publicKeyOptionsJson: { publicKey: PublicKeyCredentialCreationOptionsJSON } }> {
    const uuid = canonicalUuid(user.uuid);
    const chosen = labelOf(label) ?? DEFAULT_PASSKEY_LABEL;
    const existing = this.store.listOf(uuid);
    if (existing.length >= this.options.maxPerUser) {
      throw new ApiError('PASSKEY_LIMIT_REACHED', `you already have ${existing.length} passkeys, the most allowed; delete one before adding another`);
    }
    const slots = this.admit(caller);
    const publicKey = await this.generating(slots, async () => (await webauthn()).generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userID: uuidBytes(uuid),
      userName: user.name,
      userDisplayName: user.name,
      timeout: this.options.challengeTtlMs,
      attestationType: 'none',
      excludeCredentials: existing.map((p) => ({ id: p.credentialId, transports: p.transports })),
      authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
    }));
    const ceremonyId = this.open({ kind: 'register', challenge: publicKey.challenge, expiresAt: this.mono() + this.options.challengeTtlMs, uuid, label: chosen, slots });
    return { ceremonyId, publicKeyOptionsJson: { publicKey } };
  }

  async registerFinish(user: Player, ceremonyId: string, responseJson: unknown, label?: string): Promise<PasskeyView> {
    const uuid = canonicalUuid(user.uuid);
    const finishLabel = labelOf(label);
    const ceremony = this.ceremonies.get(ceremonyId);
    const fail = (why: string) => new ApiError('PASSKEY_REGISTER_FAILED', `passkey registration failed: ${why}`);
    if (ceremony?.kind !== 'register') throw fail('unknown or already finished registration ceremony; start the registration again');
    // Another player's call must not burn the owner's ceremony, so ownership is checked before it is consumed.
    if (ceremony.uuid !== uuid) throw fail('this registration ceremony was started by another account');
    this.drop(ceremonyId);
    if (ceremony.expiresAt <= this.mono()) throw fail('the registration ceremony expired; start the registration again');

    const response = parseResponse<RegistrationResponseJSON>(RegistrationResponseSchema, responseJson, fail);
    const origin = this.checkClientData(response.response.clientDataJSON, ceremony.challenge, fail);
    const verification = await (await webauthn()).verifyRegistrationResponse({
      response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: origin,
      expectedRPID: this.rp.id,
      requireUserVerification: false,
    }).catch((error: unknown) => {
      throw fail(libraryReason(error));
    });
    if (!verification.verified) throw fail("the authenticator's attestation did not verify");
    const info = verification.registrationInfo;
    if (info.credential.id !== response.id) throw fail('the credential id does not match the one in the authenticator data');

    const at = this.now();
    const passkey: StoredPasskey = {
      credentialId: info.credential.id,
      uuid,
      name: user.name,
      publicKey: info.credential.publicKey,
      signCount: info.credential.counter,
      transports: response.response.transports ?? [],
      label: finishLabel ?? ceremony.label,
      aaguid: /^[0-]+$/.test(info.aaguid) ? null : info.aaguid,
      backedUp: info.credentialBackedUp,
      createdAt: at,
      lastUsedAt: null,
    };
    const outcome = this.store.insert(passkey, this.options.maxPerUser);
    if (outcome === 'duplicate') throw fail('this passkey is already registered');
    if (outcome === 'limit') throw new ApiError('PASSKEY_LIMIT_REACHED', `you already have ${this.options.maxPerUser} passkeys, the most allowed; delete one before adding another`);
    return viewOf(passkey);
  }

  async loginStart(caller?: CeremonyCaller): Promise<{ ceremonyId: string; publicKeyOptionsJson: { publicKey: PublicKeyCredentialRequestOptionsJSON } }> {
    const slots = this.admit(caller && { ip: caller.ip });
    const publicKey = await this.generating(slots, async () =>
      (await webauthn()).generateAuthenticationOptions({
        rpID: this.rp.id,
        allowCredentials: [],
        userVerification: 'preferred',
        timeout: this.options.challengeTtlMs,
      }),
    );
    const ceremonyId = this.open({ kind: 'login', challenge: publicKey.challenge, expiresAt: this.mono() + this.options.challengeTtlMs, slots });
    return { ceremonyId, publicKeyOptionsJson: { publicKey } };
  }

  async loginFinish(ceremonyId: string, responseJson: unknown): Promise<{ uuid: string; name: string; credentialId: string }> {
    const fail = (why: string) => new ApiError('PASSKEY_LOGIN_FAILED', `passkey login failed: ${why}`);
    const ceremony = this.ceremonies.get(ceremonyId);
    if (ceremony?.kind !== 'login') throw fail('unknown or already used login ceremony; start the login again');
    this.drop(ceremonyId);
    if (ceremony.expiresAt <= this.mono()) throw fail('the login ceremony expired; start the login again');

    const response = parseResponse<AuthenticationResponseJSON>(AuthenticationResponseSchema, responseJson, fail);
    const stored = this.store.get(response.id);
    if (!stored) throw fail('this passkey is not registered here (it may have been deleted); sign in another way');
    const { userHandle } = response.response;
    if (userHandle && !sameBytes(Buffer.from(userHandle, 'base64url'), uuidBytes(stored.uuid))) {
      throw fail('the passkey answered for a different account than the one it is registered to');
    }
    const origin = this.checkClientData(response.response.clientDataJSON, ceremony.challenge, fail);
    const verification = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: ceremony.challenge,
      expectedOrigin: origin,
      expectedRPID: this.rp.id,
      credential: { id: stored.credentialId, publicKey: stored.publicKey, counter: stored.signCount, transports: stored.transports },
      requireUserVerification: false,
    }).catch((error: unknown) => {
      throw fail(libraryReason(error));
    });
    if (!verification.verified) throw fail("the signature does not match the registered passkey's key");
    const { newCounter, credentialBackedUp } = verification.authenticationInfo;
    if (!this.store.recordUse(stored.credentialId, stored.signCount, newCounter, credentialBackedUp, this.now())) {
      throw fail('the passkey was used by another login at the same moment; try again');
    }
    return { uuid: stored.uuid, name: stored.name, credentialId: stored.credentialId };
  }

  list(uuid: string): PasskeyView[] {
    return this.store.listOf(canonicalUuid(uuid)).map(viewOf);
  }

  delete(uuid: string, credentialId: string): void {
    if (!this.store.delete(canonicalUuid(uuid), credentialId)) {
      throw new ApiError('PASSKEY_NOT_FOUND', 'no passkey with that id is registered to your account');
    }
  }

  openCeremonies(): number {
    const at = this.mono();
    let open = 0;
    for (const c of this.ceremonies.values()) if (c.expiresAt > at) open++;
    return open;
  }

  /**
   * Takes a slot for a new ceremony, after sweeping expired ones: refused when the caller's
   * session or address already holds its share, or when the global cap is reached. The slots
   * go to the ceremony (`open`) or back (`generating` failed).
   */
  private admit(caller: CeremonyCaller | undefined): Slots {
    this.sweepExpired();
    const slots: string[] = [];
    if (caller?.sessionId !== undefined) {
      const slot = `session:${caller.sessionId}`;
      const max = this.options.maxPerSession ?? MAX_CEREMONIES_PER_SESSION;
      if ((this.held.get(slot) ?? 0) >= max) {
        const wait = this.waitFor(slot);
        throw callerLimited(wait, `this session already has ${max} passkey registrations open: finish or cancel one in the browser, or try again in ${wait} s`);
      }
      slots.push(slot);
    }
    if (caller !== undefined) {
      const slot = `ip:${caller.ip}`;
      const max = this.options.maxPerAddress ?? MAX_CEREMONIES_PER_ADDRESS;
      if ((this.held.get(slot) ?? 0) >= max) {
        const wait = this.waitFor(slot);
        throw callerLimited(wait, `${max} passkey sign-ins or registrations are already open from this address: finish one, or try again in ${wait} s`);
      }
      slots.push(slot);
    }
    if (this.ceremonies.size + this.reserved >= this.maxOpen) {
      const at = this.mono();
      const oldest = this.ceremonies.values().next().value;
      const retryAfter = Math.max(1, Math.ceil(((oldest?.expiresAt ?? at) - at) / 1000));
      throw new ApiError('AUTH_RATE_LIMITED', `too many passkey ceremonies are open (${this.maxOpen}); try again in ${retryAfter} s`, 429, { 'Retry-After': String(retryAfter) });
    }
    for (const slot of slots) this.held.set(slot, (this.held.get(slot) ?? 0) + 1);
    this.reserved++;
    return slots;
  }

  /** Generates a ceremony's options with its slots reserved; a failure gives them back. */
  private async generating<T>(slots: Slots, generate: () => Promise<T>): Promise<T> {
    try {
      return await generate();
    } catch (error) {
      this.release(slots);
      throw error;
    } finally {
      this.reserved--;
    }
  }

  private open(ceremony: Ceremony): string {
    const id = randomUUID();
    this.ceremonies.set(id, ceremony);
    return id;
  }

  /** Ends a ceremony (finished, failed or expired) and frees its caller's slots. */
  private drop(id: string): void {
    const ceremony = this.ceremonies.get(id);
    if (!ceremony) return;
    this.ceremonies.delete(id);
    this.release(ceremony.slots);
  }

  private release(slots: Slots): void {
    for (const slot of slots) {
      const left = (this.held.get(slot) ?? 0) - 1;
      if (left > 0) this.held.set(slot, left);
      else this.held.delete(slot);
    }
  }

  private sweepExpired(): void {
    const at = this.mono();
    // Every ceremony lives equally long, so insertion order is expiry order.
    for (const [id, c] of this.ceremonies) {
      if (c.expiresAt > at) break;
      this.drop(id);
    }
  }

  /** Seconds until the slot's oldest open ceremony ends (at least 1). */
  private waitFor(slot: string): number {
    const at = this.mono();
    for (const c of this.ceremonies.values()) {
      if (c.slots.includes(slot)) return Math.max(1, Math.ceil((c.expiresAt - at) / 1000));
    }
    return 1;
  }

  /**
   * Checks the challenge and the origin before the library does, and returns the origin to hand it
   * as the one expected: the library takes only an exact origin list (no any-port rule), and its
   * messages quote both challenges.
   */
  private checkClientData(clientDataJSON: string, challenge: string, fail: (why: string) => ApiError): string {
    let clientData: { challenge?: unknown; origin?: unknown };
    try {
      clientData = decodeClientData(clientDataJSON);
    } catch {
      throw fail('clientDataJSON is not base64url-encoded JSON');
    }
    if (clientData.challenge !== challenge) throw fail('the response answers a different challenge than this ceremony issued');
    if (typeof clientData.origin !== 'string' || !acceptsOrigin(this.rp, clientData.origin)) {
      throw fail(`origin ${JSON.stringify(String(clientData.origin).slice(0, 200))} is not an allowed dashboard origin (${this.rp.origins.join(', ')})`);
    }
    return clientData.origin;
  }
}

/** A caller over its own share of ceremonies: the spec's error body, and when to come back. */
function callerLimited(seconds: number, message: string): ApiError {
  return new ApiError('RATE_LIMITED', message, 429, { 'Retry-After': String(seconds) });
}

/** The browser's credential, as the JSON string the dashboard sends or as an object. */
function parseResponse<R>(schema: TSchema, responseJson: unknown, fail: (why: string) => ApiError): R {
  let value = responseJson;
  if (typeof responseJson === 'string') {
    try {
      value = JSON.parse(responseJson);
    } catch {
      throw fail('responseJson is not valid JSON');
    }
  }
  const problem = Value.Errors(schema, value).First();
  if (problem) throw fail(`responseJson${problem.path.replace(/\//g, '.')}: ${problem.message}`);
  const parsed = value as R & { clientExtensionResults?: unknown };
  // Only the verified fields go to the library; extension outputs are not used.
  return { ...parsed, clientExtensionResults: {} } as R;
}

/** The library's reason, as the tail of our sentence (it names fields and values, never key material). */
function libraryReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.charAt(0).toLowerCase() + message.slice(1);
}

/** A label as given: trimmed; undefined when absent or blank; refused when too long or holding control characters. */
function labelOf(label: string | undefined): string | undefined {
  const trimmed = label?.trim();
  if (!trimmed) return undefined;
  if (trimmed.length > 64 || /\p{Cc}/u.test(trimmed)) {
    throw new ApiError('VALIDATION_FAILED', 'label must be at most 64 characters, without control characters');
  }
  return trimmed;
}

/** The lower-case dashed form of a Minecraft UUID (dashed or not). */
function canonicalUuid(uuid: string): string {
  const canonical = normalizeUuid(uuid);
  if (!canonical) throw new ApiError('VALIDATION_FAILED', 'uuid must be a Minecraft UUID (32 hex digits, dashes optional)');
  return canonical;
}

/** The WebAuthn user handle: the UUID's 16 bytes, most significant first (as the reference). */
function uuidBytes(uuid: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(Buffer.from(canonicalUuid(uuid).replace(/-/g, ''), 'hex'));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function viewOf(p: StoredPasskey): PasskeyView {
  return { credentialId: p.credentialId, label: p.label, createdAt: p.createdAt, lastUsedAt: p.lastUsedAt, aaguid: p.aaguid };
}

/**
 * A local stand-in for Mojang's public profile lookup, the one upstream the punishments module
 * calls (`[punishments] name_lookup_url`). It speaks the documented format:
 *
 *   GET <base>/<name>  → 200 {"id":"<32 hex, no dashes>","name":"<canonical case>"}
 *   unknown name       → 404 {"path":"/users/profiles/minecraft/<name>","errorMessage":"Couldn't find any profile with name <name>"}
 *
 * and can be told to misbehave for one name (or every name): 429, 500, a body that is not
 * JSON, JSON without `id`, or no answer at all. Every request's path is recorded, so a test can
 * prove that something did not reach the network. Self-contained (Bun only): the e2e helper
 * reuses it against the compiled binary.
 */

/** What the fake answers for a name. */
export type ProfileMode = 'normal' | 'rate-limited' | 'server-error' | 'invalid-json' | 'no-id' | 'hang';

export interface Profile {
  /** 32 hex digits, no dashes, as Mojang sends it. */
  id: string;
  name: string;
}

export interface FakeProfileApi {
  /** The base URL to configure as `name_lookup_url` (no trailing slash); names go after it. */
  readonly url: string;
  /** `host:port`, what error messages may name. */
  readonly host: string;
  /** The path (as sent, still percent-encoded) of every request received, in order. */
  readonly requests: readonly string[];
  /** How many requests asked for this name (case-insensitively). */
  requestsFor(name: string): number;
  /** Makes a player known; the id defaults to one derived from the name. Returns the profile. */
  addProfile(name: string, id?: string): Profile;
  /** How to answer for one name (case-insensitively), or for every name without its own mode with `'*'`. */
  setMode(name: string | '*', mode: ProfileMode): void;
  /** Forgets recorded requests and modes (profiles stay). */
  reset(): void;
  /** Stops listening; requests left hanging are cut off. */
  close(): Promise<void>;
}

export interface FakeProfileApiOptions {
  /** The path names go under (default Mojang's `/users/profiles/minecraft`). */
  basePath?: string;
  /** Known players, by canonical name; ids default to one derived from the name. */
  profiles?: Record<string, string | undefined>;
}

/** Notch's real profile, a name every test can look up. */
export const NOTCH: Profile = { id: '069a79f444e94726a5befca90e38aaf5', name: 'Notch' };

/** The id Mojang's API would send, dashes removed. */
export const undashed = (uuid: string) => uuid.replace(/-/g, '').toLowerCase();

/** The controller's spelling of a Mojang id: lower-case and dashed. */
export const dashed = (id: string) => {
  const hex = undashed(id);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** A stable, version-4-looking id for a name (so tests can predict it). */
function idFor(name: string): string {
  const hex = new Bun.CryptoHasher('sha256').update(name.toLowerCase()).digest('hex');
  return `${hex.slice(0, 12)}4${hex.slice(13, 16)}8${hex.slice(17, 32)}`;
}

const json = (status: number, body: unknown) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

export function startFakeProfileApi(options: FakeProfileApiOptions = {}): FakeProfileApi {
  const basePath = (options.basePath ?? '/users/profiles/minecraft').replace(/\/+$/, '');
  const profiles = new Map<string, Profile>();
  const modes = new Map<string, ProfileMode>();
  const requests: string[] = [];
  const asked: string[] = [];
  // Releases the requests held open by 'hang' when the fake closes.
  const hanging = new Set<() => void>();

  const addProfile = (name: string, id?: string): Profile => {
    const profile = { id: undashed(id ?? idFor(name)), name };
    profiles.set(name.toLowerCase(), profile);
    return profile;
  };
  profiles.set(NOTCH.name.toLowerCase(), NOTCH);
  for (const [name, id] of Object.entries(options.profiles ?? {})) addProfile(name, id);

  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const path = new URL(request.url).pathname;
      requests.push(path);
      if (request.method !== 'GET' || !path.startsWith(`${basePath}/`)) return json(404, { path, errorMessage: 'Not Found' });
      let name: string;
      try {
        name = decodeURIComponent(path.slice(basePath.length + 1));
      } catch {
        return json(400, { path, errorMessage: 'Invalid path' });
      }
      asked.push(name.toLowerCase());
      const mode = modes.get(name.toLowerCase()) ?? modes.get('*') ?? 'normal';
      switch (mode) {
        case 'rate-limited':
          return json(429, { path: `/users/profiles/minecraft/${name}`, errorMessage: 'Too Many Requests' });
        case 'server-error':
          return json(500, { path: `/users/profiles/minecraft/${name}`, errorMessage: 'Internal Server Error' });
        case 'invalid-json':
          return new Response('{"id": "069a79f4', { status: 200, headers: { 'content-type': 'application/json' } });
        case 'no-id':
          return json(200, { name: profiles.get(name.toLowerCase())?.name ?? name });
        case 'hang':
          return new Promise<Response>((resolve) => {
            const release = () => {
              hanging.delete(release);
              resolve(json(503, { errorMessage: 'released' }));
            };
            hanging.add(release);
            request.signal.addEventListener('abort', release, { once: true });
          });
        case 'normal': {
          const profile = profiles.get(name.toLowerCase());
          if (!profile) return json(404, { path: `/users/profiles/minecraft/${name}`, errorMessage: `Couldn't find any profile with name ${name}` });
          return json(200, profile);
        }
      }
    },
  });

  const host = `127.0.0.1:${server.port}`;
  return {
    url: `http://${host}${basePath}`,
    host,
    requests,
    requestsFor: (name) => asked.filter((n) => n === name.toLowerCase()).length,
    addProfile,
    setMode(name, mode) {
      modes.set(name === '*' ? '*' : name.toLowerCase(), mode);
    },
    reset() {
      requests.length = 0;
      asked.length = 0;
      modes.clear();
    },
    async close() {
      for (const release of [...hanging]) release();
      await server.stop(true);
    },
  };
}

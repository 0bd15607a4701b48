import { localPackPath, SCOPE_WEIGHT, type Assignment, type Pack, type ResolvedPack } from './model';

/**
 * The stack a backend applies, in order (spec "Stack resolution rules"): the wider scope first
 * (GLOBAL, then GROUP, then SERVICE), by priority within a scope, so what is narrower goes on
 * top. A pack assigned at several applying scopes appears once, at its narrowest place (a
 * client given one pack uuid twice would just replace it; the narrower assignment is the one
 * meant). LOCAL packs get the absolute URL under `baseUrl`.
 */
export function resolveStack(applying: readonly { assignment: Assignment; pack: Pack }[], baseUrl: string): ResolvedPack[] {
  const ordered = [...applying].sort(
    (a, b) => SCOPE_WEIGHT[a.assignment.scope] - SCOPE_WEIGHT[b.assignment.scope] || a.assignment.priority - b.assignment.priority || a.assignment.id - b.assignment.id,
  );
  const lastPlace = new Map<number, number>();
  ordered.forEach((item, index) => lastPlace.set(item.pack.id, index));
  return ordered
    .filter((item, index) => lastPlace.get(item.pack.id) === index)
    .map(({ assignment, pack }) => ({
      packUuid: pack.packUuid,
      name: pack.name,
      url: pack.source === 'LOCAL' ? `${baseUrl}${localPackPath(pack.packUuid)}` : pack.url,
      sha1Hash: pack.sha1Hash,
      promptMessage: pack.promptMessage,
      force: pack.force,
      priority: assignment.priority,
    }));
}

/**
 * Where clients download LOCAL packs (evaluated on every stack request): `[resourcepacks]
 * public_base_url` without its trailing slashes, else the API's own address with a wildcard
 * bind made loopback (behind a reverse proxy the setting must be made).
 */
export function publicBaseUrl(configured: string, bind: string, port: number): string {
  const set = configured.trim().replace(/\/+$/, '');
  if (set !== '') return set;
  const host = bind === '0.0.0.0' || bind === '' ? '127.0.0.1' : bind === '::' ? '::1' : bind;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

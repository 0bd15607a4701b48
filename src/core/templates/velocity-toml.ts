import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { tomlString, tomlValueEnd } from '../../config/patch';
import type { ForwardingMode } from './forwarding-mode';

/** A backend the proxy may send players to. */
export interface ProxyServer {
  /** Key in `[servers]`; what `/server <name>` and forced hosts refer to. */
  name: string;
  host: string;
  port: number;
  /** Lobby servers come first in `try`, where players land on login and after a kick. */
  lobby?: boolean;
}

export interface VelocityPatch {
  /** Port the proxy listens on, on every interface. */
  port: number;
  forwarding: ForwardingMode;
  servers: readonly ProxyServer[];
  /**
   * `[advanced] haproxy-protocol`: true when the load balancer in front sends the PROXY
   * protocol header (the proxy must then expect it), false when it does not; absent leaves the
   * template's setting alone (no load balancer).
   */
  haproxyProtocol?: boolean;
}

/** Name of the file the proxy reads the forwarding secret from, relative to its work dir. */
export const FORWARDING_SECRET_FILE_NAME = 'forwarding.secret';

/**
 * Used when the templates hold no velocity.toml. Velocity fills in every setting left out with
 * its defaults, merging whole missing sections from its built-in file; that file's example
 * `[forced-hosts]` names servers that do not exist here, and Velocity then refuses to start,
 * so the section is always written, empty.
 */
const MINIMAL = `# velocity.toml written by svc: the templates held none. Velocity uses its defaults for
# everything not set here; put a velocity.toml into the proxy template to change them.
config-version = "2.7"
bind = "0.0.0.0:25565"
online-mode = true
player-info-forwarding-mode = "modern"
forwarding-secret-file = "${FORWARDING_SECRET_FILE_NAME}"

[servers]
try = []

[forced-hosts]
`;

const HEADER = /^\s*\[/;
type Table = Record<string, unknown>;

/**
 * Points a velocity.toml (or, for `null`, a minimal one) at this network: `bind`,
 * `player-info-forwarding-mode`, `forwarding-secret-file` set in place; `[servers]`
 * regenerated from `servers` with `try` listing lobbies first, then the rest; `[forced-hosts]`
 * entries pruned to servers that exist (Velocity refuses to start on a forced host naming an
 * unknown server) and the section added empty when missing. Every other line and comment is
 * kept. The result is parsed and compared with the input plus these changes; if the line
 * edits went wrong, the file is rendered from the data instead (comments lost, values right).
 */
export function patchVelocityToml(text: string | null, patch: VelocityPatch): string {
  validatePatch(patch);
  const source = text ?? MINIMAL;
  const before = parseVelocityToml(source);
  const servers = serversTable(patch.servers);
  const forcedHosts = prunedForcedHosts(before['forced-hosts'], new Set(patch.servers.map((s) => s.name)));
  const expected: Table = {
    ...structuredClone(before),
    bind: `0.0.0.0:${patch.port}`,
    'player-info-forwarding-mode': patch.forwarding,
    'forwarding-secret-file': FORWARDING_SECRET_FILE_NAME,
    servers,
    'forced-hosts': forcedHosts.table,
  };
  if (patch.haproxyProtocol !== undefined) {
    const advanced = before.advanced;
    expected.advanced = { ...(typeof advanced === 'object' && advanced !== null && !Array.isArray(advanced) ? (advanced as Table) : {}), 'haproxy-protocol': patch.haproxyProtocol };
  }

  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const lines = source.split(/\r?\n/);
  setRootKey(lines, 'bind', tomlString(`0.0.0.0:${patch.port}`));
  setRootKey(lines, 'player-info-forwarding-mode', tomlString(patch.forwarding));
  setRootKey(lines, 'forwarding-secret-file', tomlString(FORWARDING_SECRET_FILE_NAME));
  replaceSection(lines, 'servers', serverLines(patch.servers), 'forced-hosts');
  if (forcedHosts.changed) replaceSection(lines, 'forced-hosts', forcedHostLines(forcedHosts.table), null);
  if (patch.haproxyProtocol !== undefined) setSectionKey(lines, 'advanced', 'haproxy-protocol', String(patch.haproxyProtocol));
  const patched = lines.join(eol);
  if (parsesTo(patched, expected)) return patched;
  return stringifyToml(expected);
}

function validatePatch(patch: VelocityPatch): void {
  checkPort(patch.port, 'proxy port');
  const names = new Set<string>();
  for (const server of patch.servers) {
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(server.name)) throw new Error(`server name ${JSON.stringify(server.name)} is not a valid Velocity server name`);
    // `try` shares the [servers] table with the servers themselves.
    if (server.name === 'try') throw new Error('a server cannot be named "try" in velocity.toml');
    if (names.has(server.name)) throw new Error(`server "${server.name}" is listed twice`);
    names.add(server.name);
    if (!/^[A-Za-z0-9.:_\-[\]]+$/.test(server.host)) throw new Error(`server "${server.name}": host ${JSON.stringify(server.host)} is not a host name or address`);
    checkPort(server.port, `server "${server.name}" port`);
  }
}

function checkPort(port: number, what: string): void {
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`${what} ${port} is not a TCP port`);
}

function parseVelocityToml(text: string): Table {
  try {
    return structuredClone(parseToml(text)) as Table;
  } catch (error) {
    throw new Error(`velocity.toml is not valid TOML: ${(error as Error).message}`);
  }
}

function parsesTo(text: string, expected: Table): boolean {
  try {
    return Bun.deepEquals(structuredClone(parseToml(text)), expected, true);
  } catch {
    return false;
  }
}

function address(server: ProxyServer): string {
  const host = server.host.includes(':') && !server.host.startsWith('[') ? `[${server.host}]` : server.host;
  return `${host}:${server.port}`;
}

/** Lobbies first, each group in the order given. */
function tryOrder(servers: readonly ProxyServer[]): string[] {
  return [...servers.filter((s) => s.lobby), ...servers.filter((s) => !s.lobby)].map((s) => s.name);
}

function serversTable(servers: readonly ProxyServer[]): Table {
  const table: Table = {};
  for (const server of servers) table[server.name] = address(server);
  table.try = tryOrder(servers);
  return table;
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : tomlString(key);
}

function serverLines(servers: readonly ProxyServer[]): string[] {
  return [
    '# Regenerated by svc from the running backends on every start: edits here do not last.',
    ...servers.map((s) => `${tomlKey(s.name)} = ${tomlString(address(s))}`),
    `try = [${tryOrder(servers).map(tomlString).join(', ')}]`,
  ];
}

function prunedForcedHosts(value: unknown, known: ReadonlySet<string>): { table: Table; changed: boolean } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { table: {}, changed: true };
  const table: Table = {};
  let changed = false;
  for (const [host, targets] of Object.entries(value)) {
    const kept = Array.isArray(targets) ? targets.filter((t): t is string => typeof t === 'string' && known.has(t)) : [];
    if (!Array.isArray(targets) || kept.length !== targets.length) changed = true;
    // Velocity also rejects a forced host with no servers at all.
    if (kept.length > 0) table[host] = kept;
  }
  return { table, changed };
}

function forcedHostLines(table: Table): string[] {
  return Object.entries(table).map(([host, targets]) => `${tomlString(host)} = [${(targets as string[]).map(tomlString).join(', ')}]`);
}

/** Sets a top-level key (before the first table header), or adds it after the last one. */
function setRootKey(lines: string[], key: string, rendered: string): void {
  const firstHeader = lines.findIndex((line) => HEADER.test(line));
  const rootEnd = firstHeader === -1 ? lines.length : firstHeader;
  const pattern = new RegExp(`^([ \\t]*(?:${key}|"${key}")[ \\t]*=[ \\t]*)(.*)$`);
  let lastContent = -1;
  for (let i = 0; i < rootEnd; i++) {
    const line = lines[i]!;
    const match = pattern.exec(line);
    if (match) {
      const rest = match[2]!;
      lines[i] = `${match[1]}${rendered}${rest.slice(tomlValueEnd(rest))}`;
      return;
    }
    if (isContent(line)) lastContent = i;
  }
  lines.splice(lastContent === -1 ? rootEnd : lastContent + 1, 0, `${key} = ${rendered}`);
}

/** Sets `key` inside table `name` (in place, else after the table's last key); a missing table is added at the end. */
function setSectionKey(lines: string[], name: string, key: string, rendered: string): void {
  const header = findHeader(lines, name);
  if (header === -1) {
    const at = trimmedEnd(lines);
    lines.splice(at, 0, ...(at > 0 ? [''] : []), `[${name}]`, `${key} = ${rendered}`);
    return;
  }
  const pattern = new RegExp(`^([ \\t]*(?:${key}|"${key}")[ \\t]*=[ \\t]*)(.*)$`);
  let lastContent = header;
  for (let i = header + 1; i < lines.length && !HEADER.test(lines[i]!); i++) {
    const match = pattern.exec(lines[i]!);
    if (match) {
      const rest = match[2]!;
      lines[i] = `${match[1]}${rendered}${rest.slice(tomlValueEnd(rest))}`;
      return;
    }
    if (isContent(lines[i]!)) lastContent = i;
  }
  lines.splice(lastContent + 1, 0, `${key} = ${rendered}`);
}

/**
 * Replaces a table's key lines: the header and the comments right under it stay, everything
 * from the first key to the last is replaced by `body`, and comments and blanks after the last
 * key (usually the next section's preamble) stay. A missing table is added before the table
 * `before` (if present) or at the end.
 */
function replaceSection(lines: string[], name: string, body: string[], before: string | null): void {
  const header = findHeader(lines, name);
  if (header === -1) {
    const next = before === null ? -1 : findHeader(lines, before);
    const at = next === -1 ? trimmedEnd(lines) : next;
    const block = [`[${name}]`, ...body, ''];
    if (at > 0 && lines[at - 1]!.trim() !== '') block.unshift('');
    lines.splice(at, 0, ...block);
    return;
  }
  let end = lines.length;
  for (let i = header + 1; i < lines.length; i++) {
    if (HEADER.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  // Our own comment lines from an earlier run would sit among the kept comments: drop them.
  const ours = new Set(body.filter((line) => line.startsWith('#')));
  for (let i = end - 1; i > header; i--) {
    if (!ours.has(lines[i]!)) continue;
    lines.splice(i, 1);
    end--;
  }
  let first = header + 1;
  while (first < end && !isContent(lines[first]!)) first++;
  let last = end - 1;
  while (last > header && !isContent(lines[last]!)) last--;
  if (first > last) lines.splice(header + 1, 0, ...body);
  else lines.splice(first, last - first + 1, ...body);
}

function findHeader(lines: string[], name: string): number {
  const pattern = new RegExp(`^\\s*\\[\\s*(?:${name.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')}|"${name}")\\s*\\]\\s*(?:#.*)?$`);
  return lines.findIndex((line) => pattern.test(line));
}

/** Index after the last non-blank line, so a new table does not land after trailing blanks. */
function trimmedEnd(lines: string[]): number {
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  return end;
}

function isContent(line: string): boolean {
  const trimmed = line.trim();
  return trimmed !== '' && !trimmed.startsWith('#');
}

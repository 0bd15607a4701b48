import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { patchProxy } from '../../../src/core/templates/patches';
import { patchVelocityToml, type ProxyServer } from '../../../src/core/templates/velocity-toml';
import { removeTempDirs, tempDir, writeTree } from './fixtures';

afterEach(removeTempDirs);

/** Velocity 3.x's generated file, abridged (every section and the comment style kept). */
const DEFAULT_VELOCITY_TOML = `# Config version. Do not change this
config-version = "2.7"

# What port should the proxy be bound to? By default, we'll bind to all addresses on port 25565.
bind = "0.0.0.0:25565"

# What should be the MOTD? This gets displayed when the player adds your server to
# their server list. Only MiniMessage format is accepted.
motd = "<#09add3>A Velocity Server"

show-max-players = 500
online-mode = true
force-key-authentication = true

# Should we forward IP addresses and other data to backend servers?
player-info-forwarding-mode = "NONE" # none, legacy, bungeeguard, modern

# If you are using modern or BungeeGuard IP forwarding, configure a file that contains a unique secret here.
forwarding-secret-file = "forwarding.secret"

announce-forge = false
ping-passthrough = "DISABLED"

[servers]
# Configure your servers here. Each key represents the server's name, and the value
# represents the IP address of the server to connect to.
lobby = "127.0.0.1:30066"
factions = "127.0.0.1:30067"
minigames = "127.0.0.1:30068"

# In what order we should try servers when a player logs in or is kicked from a server.
try = [
    "lobby"
]

[forced-hosts]
# Configure your forced hosts here.
"lobby.example.com" = [
    "lobby"
]
"factions.example.com" = [
    "factions"
]

[advanced]
compression-threshold = 256
login-ratelimit = 3000

[query]
enabled = false
port = 25565
map = "Velocity"
`;

const SERVERS: ProxyServer[] = [
  { name: 'lobby', host: '127.0.0.1', port: 30001, lobby: true },
  { name: 'Game-1', host: '10.0.0.5', port: 30002 },
  { name: 'Lobby-2', host: '127.0.0.1', port: 30003, lobby: true },
];

type Toml = Record<string, unknown>;
const parse = (text: string) => parseToml(text) as Toml;

describe('velocity.toml', () => {
  test('bind, forwarding and [servers] are set; try lists lobbies first; the rest is kept', () => {
    const out = patchVelocityToml(DEFAULT_VELOCITY_TOML, { port: 25577, forwarding: 'modern', servers: SERVERS });
    const toml = parse(out);
    expect(toml.bind).toBe('0.0.0.0:25577');
    expect(toml['player-info-forwarding-mode']).toBe('modern');
    expect(toml['forwarding-secret-file']).toBe('forwarding.secret');
    expect({ ...(toml.servers as Toml) }).toEqual({ lobby: '127.0.0.1:30001', 'Game-1': '10.0.0.5:30002', 'Lobby-2': '127.0.0.1:30003', try: ['lobby', 'Lobby-2', 'Game-1'] });
    expect(toml.motd).toBe('<#09add3>A Velocity Server');
    expect({ ...(toml.advanced as Toml) }).toEqual({ 'compression-threshold': 256, 'login-ratelimit': 3000 });
    expect({ ...(toml.query as Toml) }).toEqual({ enabled: false, port: 25565, map: 'Velocity' });
    // Comments survive, including the one after a replaced value.
    expect(out).toContain('# What should be the MOTD? This gets displayed when the player adds your server to\n');
    expect(out).toContain('player-info-forwarding-mode = "modern" # none, legacy, bungeeguard, modern\n');
    expect(out).toContain('[servers]\n# Configure your servers here.');
    expect(out).toContain('[advanced]\ncompression-threshold = 256\n');
  });

  test('forced hosts naming servers that no longer exist are pruned (Velocity would not start)', () => {
    const toml = parse(patchVelocityToml(DEFAULT_VELOCITY_TOML, { port: 25565, forwarding: 'modern', servers: SERVERS }));
    expect({ ...(toml['forced-hosts'] as Toml) }).toEqual({ 'lobby.example.com': ['lobby'] });
  });

  test('regenerated on every call: old servers go, output is stable', () => {
    const first = patchVelocityToml(DEFAULT_VELOCITY_TOML, { port: 25565, forwarding: 'modern', servers: SERVERS });
    const second = patchVelocityToml(first, { port: 25565, forwarding: 'legacy', servers: [{ name: 'Game-1', host: 'game.internal', port: 30009 }] });
    const toml = parse(second);
    expect({ ...(toml.servers as Toml) }).toEqual({ 'Game-1': 'game.internal:30009', try: ['Game-1'] });
    expect(toml['player-info-forwarding-mode']).toBe('legacy');
    expect({ ...(toml['forced-hosts'] as Toml) }).toEqual({});
    expect(patchVelocityToml(second, { port: 25565, forwarding: 'legacy', servers: [{ name: 'Game-1', host: 'game.internal', port: 30009 }] })).toBe(second);
  });

  test('without a velocity.toml a minimal valid one is written, with an explicit empty [forced-hosts]', () => {
    const out = patchVelocityToml(null, { port: 25565, forwarding: 'modern', servers: [SERVERS[0]!] });
    const toml = parse(out);
    expect(toml).toMatchObject({ 'config-version': '2.7', bind: '0.0.0.0:25565', 'player-info-forwarding-mode': 'modern', 'forwarding-secret-file': 'forwarding.secret' });
    expect({ ...(toml.servers as Toml) }).toEqual({ lobby: '127.0.0.1:30001', try: ['lobby'] });
    expect(out).toContain('\n[forced-hosts]\n');
  });

  test('missing keys and tables are added to a sparse file', () => {
    const toml = parse(patchVelocityToml('# mine\nmotd = "hi"\n', { port: 1, forwarding: 'modern', servers: SERVERS.slice(0, 1) }));
    const plain: Toml = { ...toml, servers: { ...(toml.servers as Toml) }, 'forced-hosts': { ...(toml['forced-hosts'] as Toml) } };
    expect(plain).toEqual({
      motd: 'hi',
      bind: '0.0.0.0:1',
      'player-info-forwarding-mode': 'modern',
      'forwarding-secret-file': 'forwarding.secret',
      servers: { lobby: '127.0.0.1:30001', try: ['lobby'] },
      'forced-hosts': {},
    });
  });

  test('odd names are quoted, IPv6 hosts bracketed', () => {
    const toml = parse(patchVelocityToml(null, { port: 1, forwarding: 'modern', servers: [{ name: 'game.eu', host: '::1', port: 30001 }] }));
    expect({ ...(toml.servers as Toml) }).toEqual({ 'game.eu': '[::1]:30001', try: ['game.eu'] });
  });

  test.each([
    [[{ name: 'try', host: 'h', port: 1 }], 'named "try"'],
    [[{ name: 'a', host: 'h', port: 1 }, { name: 'a', host: 'h', port: 2 }], 'listed twice'],
    [[{ name: 'a', host: 'h', port: 70000 }], 'not a TCP port'],
    [[{ name: 'a b', host: 'h', port: 1 }], 'not a valid Velocity server name'],
    [[{ name: 'a', host: 'h"x', port: 1 }], 'not a host name'],
  ])('bad server lists are refused (%#)', (servers, message) => {
    expect(() => patchVelocityToml(null, { port: 25565, forwarding: 'modern', servers })).toThrow(message);
  });

  test('a velocity.toml that is not TOML is an error, not silently replaced', () => {
    expect(() => patchVelocityToml('bind = ', { port: 1, forwarding: 'modern', servers: [] })).toThrow('velocity.toml is not valid TOML');
  });

  test('patchProxy writes velocity.toml and forwarding.secret (mode 600)', () => {
    const work = tempDir();
    writeTree(work, { 'forwarding.secret': 'stale from the template' });
    patchProxy(work, { port: 25565, forwarding: 'modern', servers: SERVERS, secret: 'the-secret' });
    expect(readFileSync(join(work, 'forwarding.secret'), 'utf8')).toBe('the-secret');
    expect(statSync(join(work, 'forwarding.secret')).mode & 0o777).toBe(0o600);
    expect(parse(readFileSync(join(work, 'velocity.toml'), 'utf8')).bind).toBe('0.0.0.0:25565');
  });
});

test('a layout the line edit cannot handle (inline [servers] table) is rendered from the data instead', () => {
  const out = patchVelocityToml('motd = "hi"\nservers = { old = "h:1", try = ["old"] }\n', { port: 2, forwarding: 'modern', servers: SERVERS.slice(0, 1) });
  const toml = parse(out);
  expect(toml.motd).toBe('hi');
  expect({ ...(toml.servers as Toml) }).toEqual({ lobby: '127.0.0.1:30001', try: ['lobby'] });
  expect({ ...(toml['forced-hosts'] as Toml) }).toEqual({});
});

describe('haproxy-protocol follows the load balancer', () => {
  const patch = { port: 25577, forwarding: 'modern' as const, servers: SERVERS };

  test('set in place in an existing [advanced], other keys and comments kept', () => {
    const text = '[servers]\ntry = []\n\n[advanced]\n# keep me\ncompression-threshold = 256\nhaproxy-protocol = false # was off\n\n[forced-hosts]\n';
    const out = patchVelocityToml(text, { ...patch, haproxyProtocol: true });
    expect(parse(out).advanced).toEqual({ 'compression-threshold': 256, 'haproxy-protocol': true });
    expect(out).toContain('# keep me');
    expect(out).toContain('haproxy-protocol = true # was off');
  });

  test('added to [advanced] when absent, and the table added when missing', () => {
    const withTable = patchVelocityToml('[advanced]\ncompression-threshold = 256\n', { ...patch, haproxyProtocol: true });
    expect(parse(withTable).advanced).toEqual({ 'compression-threshold': 256, 'haproxy-protocol': true });
    const minimal = patchVelocityToml(null, { ...patch, haproxyProtocol: false });
    expect(parse(minimal).advanced).toEqual({ 'haproxy-protocol': false });
  });

  test('without a load balancer the template decides', () => {
    const text = '[advanced]\nhaproxy-protocol = true\n';
    expect(parse(patchVelocityToml(text, patch)).advanced).toEqual({ 'haproxy-protocol': true });
  });
});

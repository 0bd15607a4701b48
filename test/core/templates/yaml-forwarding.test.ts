import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { forwardingModeFor } from '../../../src/core/templates/forwarding-mode';
import { patchBackendForwarding } from '../../../src/core/templates/patches';
import { setYamlValues } from '../../../src/core/templates/yaml-block';
import { removeTempDirs, tempDir, writeTree } from './fixtures';

afterEach(removeTempDirs);

/** Paper 1.21's config/paper-global.yml, abridged. */
const PAPER_GLOBAL = `# This is the global configuration file for Paper.
# As you can see, there's a lot to configure. Some options may impact gameplay, so use
# with caution, and make sure you know what each option does before configuring.

_version: 29
block-updates:
  disable-chorus-plant-updates: false
messages:
  kick:
    authentication-servers-down: <lang:multiplayer.disconnect.authservers_down>
  no-permission: <red>I'm sorry, but you do not have permission to perform this command.
proxies:
  bungee-cord:
    online-mode: true
  proxy-protocol: false
  velocity:
    enabled: false # set by hand
    online-mode: false
    secret: ''
scoreboards:
  save-empty-scoreboard-teams: true
`;

const SPIGOT = `# This is the main configuration file for Spigot.
config-version: 12
settings:
  debug: false
  bungeecord: false
  timeout-time: 60
messages:
  whitelist: You are not whitelisted on this server!
`;

type Yaml = Record<string, unknown>;
const parse = (text: string) => Bun.YAML.parse(text) as Yaml;

/** Lines of `after` that differ from `before` (same line count expected). */
function changedLines(before: string, after: string): string[] {
  const a = before.split('\n');
  return after.split('\n').filter((line, i) => line !== a[i]);
}

describe('paper-global.yml (modern forwarding)', () => {
  test('only the velocity block changes; comments, other keys and bungee-cord online-mode stay', () => {
    const out = setYamlValues(PAPER_GLOBAL, ['proxies', 'velocity'], { enabled: true, 'online-mode': true, secret: "it's-secret" });
    expect(changedLines(PAPER_GLOBAL, out)).toEqual(['    enabled: true # set by hand', '    online-mode: true', "    secret: 'it''s-secret'"]);
    const data = parse(out);
    expect(data.proxies).toEqual({ 'bungee-cord': { 'online-mode': true }, 'proxy-protocol': false, velocity: { enabled: true, 'online-mode': true, secret: "it's-secret" } });
    expect(data._version).toBe(29);
  });

  test('a missing velocity block is added under proxies; a missing proxies block at the end', () => {
    const noVelocity = PAPER_GLOBAL.replace("  velocity:\n    enabled: false # set by hand\n    online-mode: false\n    secret: ''\n", '');
    const out = setYamlValues(noVelocity, ['proxies', 'velocity'], { enabled: true, secret: 'x' });
    expect(out).toContain("  proxy-protocol: false\n  velocity:\n    enabled: true\n    secret: 'x'\nscoreboards:\n");
    const noProxies = '# head\n_version: 29\nmisc:\n  a: 1\n';
    expect(setYamlValues(noProxies, ['proxies', 'velocity'], { enabled: true })).toBe('# head\n_version: 29\nmisc:\n  a: 1\nproxies:\n  velocity:\n    enabled: true\n');
  });

  test('an absent or empty file becomes just the block', () => {
    expect(setYamlValues('', ['proxies', 'velocity'], { enabled: true, 'online-mode': true, secret: 's' })).toBe("proxies:\n  velocity:\n    enabled: true\n    online-mode: true\n    secret: 's'\n");
  });

  test('the file keeps its indentation width and CRLF line ends', () => {
    const fourSpaces = 'proxies:\r\n    velocity:\r\n        enabled: false\r\nother: 1\r\n';
    expect(setYamlValues(fourSpaces, ['proxies', 'velocity'], { enabled: true, secret: 's' })).toBe("proxies:\r\n    velocity:\r\n        enabled: true\r\n        secret: 's'\r\nother: 1\r\n");
  });

  test('flow style cannot be edited in lines: rendered from the data, values right', () => {
    const out = setYamlValues('proxies: {velocity: {enabled: false}, proxy-protocol: true}\nkeep: [1, 2]\n', ['proxies', 'velocity'], { enabled: true, secret: 's' });
    expect(parse(out)).toEqual({ proxies: { velocity: { enabled: true, secret: 's' }, 'proxy-protocol': true }, keep: [1, 2] });
  });

  test('text that is not a YAML mapping is refused', () => {
    expect(() => setYamlValues('- a\n- b\n', ['proxies'], { x: 1 })).toThrow('not a mapping');
    expect(() => setYamlValues('a: [\n', ['proxies'], { x: 1 })).toThrow();
  });

  test('patchBackendForwarding creates config/paper-global.yml when absent and updates it when present', () => {
    const fresh = tempDir();
    expect(patchBackendForwarding(fresh, 'modern', 'sec')).toEqual(['config/paper-global.yml']);
    expect(parse(readFileSync(join(fresh, 'config/paper-global.yml'), 'utf8'))).toEqual({ proxies: { velocity: { enabled: true, 'online-mode': true, secret: 'sec' } } });
    expect(existsSync(join(fresh, 'spigot.yml'))).toBe(false);
    const work = tempDir();
    writeTree(work, { 'config/paper-global.yml': PAPER_GLOBAL });
    patchBackendForwarding(work, 'modern', 'sec');
    const text = readFileSync(join(work, 'config/paper-global.yml'), 'utf8');
    expect(changedLines(PAPER_GLOBAL, text)).toHaveLength(3);
    expect(patchBackendForwarding(work, 'modern', 'sec')).toEqual([]);
  });
});

describe('spigot.yml (legacy forwarding)', () => {
  test('settings.bungeecord is switched on, nothing else changes', () => {
    const work = tempDir();
    writeTree(work, { 'spigot.yml': SPIGOT });
    expect(patchBackendForwarding(work, 'legacy', 'unused')).toEqual(['spigot.yml']);
    const text = readFileSync(join(work, 'spigot.yml'), 'utf8');
    expect(changedLines(SPIGOT, text)).toEqual(['  bungeecord: true']);
    expect(existsSync(join(work, 'config/paper-global.yml'))).toBe(false);
  });

  test('created when absent; Velocity support in an existing paper-global.yml is switched off', () => {
    const work = tempDir();
    writeTree(work, { 'config/paper-global.yml': PAPER_GLOBAL.replace('enabled: false # set by hand', 'enabled: true') });
    expect(patchBackendForwarding(work, 'legacy', 'unused').sort()).toEqual(['config/paper-global.yml', 'spigot.yml']);
    expect(parse(readFileSync(join(work, 'spigot.yml'), 'utf8'))).toEqual({ settings: { bungeecord: true } });
    expect((parse(readFileSync(join(work, 'config/paper-global.yml'), 'utf8')).proxies as Yaml).velocity).toEqual({ enabled: false, 'online-mode': false, secret: '' });
  });
});

describe('forwarding mode', () => {
  test('legacy as soon as one backend is older than 1.13', () => {
    expect(forwardingModeFor(['1.21.4', '1.20.1'])).toBe('modern');
    expect(forwardingModeFor(['1.13'])).toBe('modern');
    expect(forwardingModeFor(['1.21.4', '1.12.2'])).toBe('legacy');
    expect(forwardingModeFor(['1.8.8'])).toBe('legacy');
    expect(forwardingModeFor([])).toBe('modern');
    expect(forwardingModeFor(['not a version'])).toBe('modern');
  });
});

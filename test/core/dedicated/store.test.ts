import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { dedicatedDefaults, dedicatedPolicy, type Dedicated } from '../../../src/core/dedicated/model';
import { DedicatedStore } from '../../../src/core/dedicated/store';
import { parseDedicatedToml, renderDedicatedToml } from '../../../src/core/dedicated/toml';
import { GroupStore } from '../../../src/core/groups/store';
import type { Group } from '../../../src/core/groups/model';
import type { CommandPlan } from '../../../src/core/services/manager-deps';
import { ApiError } from '../../../src/errors';
import { tempDir } from '../../support/controller';

const survival: Dedicated = {
  ...dedicatedDefaults(),
  name: 'Survival',
  port: 25570,
  software: 'PAPER',
  version: '1.21.1',
  jvmArgs: ['-Dfoo=bar'],
  startCommand: ['./run.sh', '{port}'],
};

/** Records what a start asks of the group preparer. */
class RecordingPreparer {
  patched: { group: Group; port: number; workDir: string }[] = [];
  patch(group: Group, service: { port: number; workDir: string }): void {
    this.patched.push({ group, ...service });
  }
  plan(group: Group, service: { name: string; port: number; workDir: string }): CommandPlan {
    return { argv: [group.name, service.name, String(service.port)], env: {} };
  }
}

let tmp: ReturnType<typeof tempDir>;
let groups: GroupStore;
let preparer: RecordingPreparer;
const storeIn = (dir: string) => new DedicatedStore({ configDir: join(dir, 'config', 'dedicated'), root: join(dir, 'dedicated'), groups, preparer });

beforeEach(() => {
  tmp = tempDir('svc-dedicated-');
  groups = new GroupStore(join(tmp.dir, 'config', 'groups'));
  groups.load();
  preparer = new RecordingPreparer();
});
afterEach(() => tmp.remove());

function apiCode(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return { code: error.errorCode, message: error.message };
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('dedicated TOML form', () => {
  test('every key under [dedicated], in field order, flat camelCase in the API', () => {
    const text = renderDedicatedToml(survival);
    const raw = parseToml(text) as { dedicated: Record<string, unknown> };
    expect(Object.keys(raw)).toEqual(['dedicated']);
    expect(Object.keys(raw.dedicated)).toEqual([
      'name', 'port', 'software', 'version', 'jar_name', 'ready_pattern', 'java_path', 'start_command',
      'proxy_enabled', 'memory', 'restart_on_crash', 'max_restarts', 'jvm_args', 'jvm_optimize',
    ]);
    expect(raw.dedicated).toMatchObject({ port: 25570, start_command: ['./run.sh', '{port}'], proxy_enabled: true, memory: '2G', jvm_args: ['-Dfoo=bar'] });
  });

  test('round trips byte-stable', () => {
    const text = renderDedicatedToml(survival);
    const { config, warnings } = parseDedicatedToml(text, 'Survival.toml', 'Survival');
    expect(warnings).toEqual([]);
    expect(config).toEqual(survival);
    expect(renderDedicatedToml(config)).toBe(text);
  });

  test('a minimal hand-written file gets the defaults, the name from the file name', () => {
    const { config } = parseDedicatedToml('[dedicated]\nport = 25570\nsoftware = "PAPER"\nversion = "1.21.1"\n', 'Creative.toml', 'Creative');
    expect(config).toEqual({
      name: 'Creative', port: 25570, software: 'PAPER', version: '1.21.1', jarName: '', readyPattern: '', javaPath: '', startCommand: [],
      proxyEnabled: true, memory: '2G', restartOnCrash: true, maxRestarts: 5, jvmArgs: [], jvmOptimize: true,
    });
  });

  test('unknown keys are warnings', () => {
    const { warnings } = parseDedicatedToml('[dedicated]\nport = 1\nsoftware = "PAPER"\nversion = "1.21"\ncolour = "red"\n[extra]\nx = 1\n', 'D.toml', 'D');
    expect(warnings).toEqual(['D.toml: unknown top-level key extra (ignored)', 'D.toml: unknown key dedicated.colour (ignored)']);
  });

  test.each([
    ['[dedicated\n', 'D.toml:1:'],
    ['x = 1\n', 'D.toml: the [dedicated] table is missing'],
    ['[dedicated]\nsoftware = "PAPER"\nversion = "1.21"\n', 'D.toml: [dedicated] port is required'],
    ['[dedicated]\nport = 0\nsoftware = "PAPER"\nversion = "1.21"\n', 'D.toml: [dedicated] port: expected an integer between 1 and 65535, got 0'],
    ['[dedicated]\nport = 1\nsoftware = "SPIGOT"\nversion = "1.21"\n', 'D.toml: [dedicated] software: expected one of'],
    ['[dedicated]\nport = 1\nsoftware = "PAPER"\nversion = "1.21"\nmemory = "lots"\n', 'D.toml: [dedicated] memory: expected a string matching'],
    ['[dedicated]\nname = "Other"\nport = 1\nsoftware = "PAPER"\nversion = "1.21"\n', 'D.toml: [dedicated] name "Other" differs from the file name "D.toml"'],
    ['[dedicated]\nport = 1\nsoftware = "CUSTOM"\nversion = "1.21"\n', 'D.toml: "jarName" is required for CUSTOM software'],
  ])('a broken file names itself and the key: %p', (text, message) => {
    expect(() => parseDedicatedToml(text, 'D.toml', 'D')).toThrow(message);
  });
});

describe('dedicated policy', () => {
  test('a one-instance static group with the config’s software, memory and restart policy', () => {
    const policy = dedicatedPolicy({ ...survival, memory: '4G', restartOnCrash: false, maxRestarts: 2, readyPattern: 'Ready!' });
    expect(policy).toMatchObject({
      name: 'Survival', type: 'STATIC', software: 'PAPER', version: '1.21.1', memory: '4G', restartOnCrash: false, maxRestarts: 2, readyPattern: 'Ready!',
      startCommand: ['./run.sh', '{port}'], jvmArgs: ['-Dfoo=bar'], jvmOptimize: true, minInstances: 0, maxInstances: 1, drainTimeout: 30, deployOnStop: false, warmPoolSize: 0,
    });
  });
});

describe('DedicatedStore', () => {
  test('create writes the nested file, provisions the directory, and loads again the same', () => {
    const store = storeIn(tmp.dir);
    store.load();
    const created = store.create({ name: 'Survival', port: 25570, software: 'PAPER', version: '1.21.1', jvmArgs: ['-Dfoo=bar'], startCommand: ['./run.sh', '{port}'] });
    expect(created).toEqual(survival);
    const file = join(tmp.dir, 'config', 'dedicated', 'Survival.toml');
    expect(readFileSync(file, 'utf8')).toBe(renderDedicatedToml(survival));
    const dir = join(tmp.dir, 'dedicated', 'Survival');
    expect(readFileSync(join(dir, 'eula.txt'), 'utf8')).toContain('eula=true');
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).toBe('server-port=25570\n');

    const again = storeIn(tmp.dir);
    expect(again.load()).toEqual({ loaded: 1, broken: [], warnings: [] });
    expect(again.get('Survival')).toEqual(survival);
    expect(again.names()).toEqual(['Survival']);
  });

  test('an existing directory keeps its files: only eula and the port change', () => {
    const dir = join(tmp.dir, 'dedicated', 'Old');
    mkdirSync(join(dir, 'world'), { recursive: true });
    writeFileSync(join(dir, 'world', 'level.dat'), 'world data');
    writeFileSync(join(dir, 'server.properties'), '#kept\nmotd=Old world\nserver-port=1234\n');
    const store = storeIn(tmp.dir);
    store.load();
    store.create({ name: 'Old', port: 25571, software: 'PAPER', version: '1.21.1' });
    expect(readFileSync(join(dir, 'world', 'level.dat'), 'utf8')).toBe('world data');
    expect(readFileSync(join(dir, 'server.properties'), 'utf8')).toBe('#kept\nmotd=Old world\nserver-port=25571\n');
  });

  test('a file where the directory should be is refused, and no config is written', () => {
    mkdirSync(join(tmp.dir, 'dedicated'), { recursive: true });
    writeFileSync(join(tmp.dir, 'dedicated', 'Odd'), 'not a directory');
    const store = storeIn(tmp.dir);
    store.load();
    const refused = apiCode(() => store.create({ name: 'Odd', port: 25571, software: 'PAPER', version: '1.21.1' }));
    expect(refused).toMatchObject({ code: 'VALIDATION_FAILED', message: expect.stringContaining('is not a directory') });
    expect(existsSync(join(tmp.dir, 'config', 'dedicated', 'Odd.toml'))).toBe(false);
  });

  test('a broken file is reported, not fatal, and its name stays taken', () => {
    const configDir = join(tmp.dir, 'config', 'dedicated');
    mkdirSync(configDir, { recursive: true });
    writeFileSync(join(configDir, 'Broken.toml'), '[dedicated]\nport = "high"\nsoftware = "PAPER"\nversion = "1.21"\n');
    writeFileSync(join(configDir, 'Fine.toml'), '[dedicated]\nport = 25580\nsoftware = "PAPER"\nversion = "1.21"\n');
    const store = storeIn(tmp.dir);
    const report = store.load();
    expect(report.loaded).toBe(1);
    expect(report.broken).toHaveLength(1);
    expect(report.broken[0]!.message).toContain('Broken.toml: [dedicated] port: expected an integer');
    expect(store.names()).toEqual(['Fine']);
    const refused = apiCode(() => store.create({ name: 'broken', port: 25581, software: 'PAPER', version: '1.21' }));
    expect(refused.code).toBe('DEDICATED_ALREADY_EXISTS');
    expect(refused.message).toContain('cannot be loaded');
    expect(readFileSync(join(configDir, 'Broken.toml'), 'utf8')).toContain('"high"');
  });

  test('duplicates (also by case) are DEDICATED_ALREADY_EXISTS; a port another config uses is DEDICATED_PORT_IN_USE', () => {
    const store = storeIn(tmp.dir);
    store.load();
    store.create({ name: 'Survival', port: 25570, software: 'PAPER', version: '1.21.1' });
    expect(apiCode(() => store.create({ name: 'Survival', port: 25571, software: 'PAPER', version: '1.21.1' })).code).toBe('DEDICATED_ALREADY_EXISTS');
    expect(apiCode(() => store.create({ name: 'survival', port: 25571, software: 'PAPER', version: '1.21.1' })).message).toContain('differ only in case');
    const clash = apiCode(() => store.create({ name: 'Creative', port: 25570, software: 'PAPER', version: '1.21.1' }));
    expect(clash).toEqual({ code: 'DEDICATED_PORT_IN_USE', message: 'port 25570 is already the port of dedicated service "Survival"' });
    expect(existsSync(join(tmp.dir, 'dedicated', 'Creative'))).toBe(false);

    store.create({ name: 'Creative', port: 25571, software: 'PAPER', version: '1.21.1' });
    expect(apiCode(() => store.update('Creative', { name: 'Creative', port: 25570, software: 'PAPER', version: '1.21.1' })).code).toBe('DEDICATED_PORT_IN_USE');
    // Its own port is no conflict.
    expect(store.update('Creative', { name: 'Creative', port: 25571, software: 'PAPER', version: '1.21.2', memory: '3G' })).toMatchObject({ version: '1.21.2', memory: '3G' });
  });

  test('update is partial: what the body omits keeps its value, memory "" is not given; replace takes a whole config', () => {
    const store = storeIn(tmp.dir);
    store.load();
    store.create(survival);
    const file = join(tmp.dir, 'config', 'dedicated', 'Survival.toml');
    const before = readFileSync(file, 'utf8');
    expect(store.update('Survival', {})).toEqual(survival);
    expect(readFileSync(file, 'utf8')).toBe(before);
    expect(store.update('Survival', { maxRestarts: 2, memory: '' })).toEqual({ ...survival, maxRestarts: 2 });
    // CUSTOM launched by its start command: blanking jarName keeps it valid, dropping both is refused.
    expect(store.update('Survival', { software: 'CUSTOM', jarName: '' })).toMatchObject({ software: 'CUSTOM', jarName: '', startCommand: ['./run.sh', '{port}'] });
    expect(apiCode(() => store.update('Survival', { startCommand: [] })).message).toContain('"jarName" is required for CUSTOM');
    expect(store.update('Survival', survival)).toEqual(survival);
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('a name equal to a group, or shaped like one of its instances, is refused', () => {
    groups.create({ name: 'Lobby', software: 'PAPER', version: '1.21.1' });
    const store = storeIn(tmp.dir);
    store.load();
    for (const name of ['Lobby', 'lobby', 'Lobby-1', 'lobby-12']) {
      const refused = apiCode(() => store.create({ name, port: 25570, software: 'PAPER', version: '1.21.1' }));
      expect(refused.code).toBe('VALIDATION_FAILED');
      expect(refused.message).toContain('group "Lobby"');
    }
    expect(apiCode(() => store.create({ name: 'Lobby-1', port: 25570, software: 'PAPER', version: '1.21.1' })).message).toContain('instance names');
    // Not an instance name: allowed.
    expect(store.create({ name: 'Lobby-old', port: 25570, software: 'PAPER', version: '1.21.1' }).name).toBe('Lobby-old');
  });

  test('update keeps the name; delete removes the file and keeps the directory; unknown names are DEDICATED_NOT_FOUND', () => {
    const store = storeIn(tmp.dir);
    store.load();
    store.create({ name: 'Survival', port: 25570, software: 'PAPER', version: '1.21.1' });
    expect(apiCode(() => store.update('Survival', { name: 'Other', port: 25570, software: 'PAPER', version: '1.21.1' })).message).toContain('cannot change');
    expect(apiCode(() => store.update('Nope', { name: 'Nope', port: 25570, software: 'PAPER', version: '1.21.1' })).code).toBe('DEDICATED_NOT_FOUND');
    expect(apiCode(() => store.create({ name: 'Custom', port: 25572, software: 'CUSTOM', version: '1.21.1' })).code).toBe('VALIDATION_FAILED');
    store.delete('Survival');
    expect(existsSync(join(tmp.dir, 'config', 'dedicated', 'Survival.toml'))).toBe(false);
    expect(existsSync(join(tmp.dir, 'dedicated', 'Survival', 'eula.txt'))).toBe(true);
    expect(apiCode(() => store.require('Survival')).code).toBe('DEDICATED_NOT_FOUND');
    expect(store.launchOf('Survival')).toBeUndefined();
  });

  test('launchOf: policy, fixed port, own directory; the patches depend on proxyEnabled', async () => {
    const store = storeIn(tmp.dir);
    store.load();
    store.create({ name: 'Survival', port: 25570, software: 'PAPER', version: '1.21.1' });
    store.create({ name: 'Direct', port: 25571, software: 'PAPER', version: '1.21.1', proxyEnabled: false });
    const launch = store.launchOf('Survival')!;
    expect(launch).toMatchObject({ port: 25570, workDir: join(tmp.dir, 'dedicated', 'Survival'), proxyEnabled: true });
    expect(launch.policy).toMatchObject({ name: 'Survival', type: 'STATIC', maxInstances: 1, memory: '2G' });
    const plan = await launch.prepare({ name: 'Survival', port: 25570, workDir: launch.workDir });
    expect(plan.argv).toEqual(['Survival', 'Survival', '25570']);
    expect(preparer.patched.map((p) => p.workDir)).toEqual([launch.workDir]);

    // Joined directly: eula and port only, never online-mode or forwarding.
    const direct = store.launchOf('Direct')!;
    expect(direct.proxyEnabled).toBe(false);
    writeFileSync(join(direct.workDir, 'server.properties'), 'online-mode=true\nserver-port=1\n');
    await direct.prepare({ name: 'Direct', port: 25571, workDir: direct.workDir });
    expect(preparer.patched).toHaveLength(1);
    expect(readFileSync(join(direct.workDir, 'server.properties'), 'utf8')).toBe('online-mode=true\nserver-port=25571\n');
  });
});

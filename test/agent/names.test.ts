/**
 * Names from the controller that become paths on an agent: every bad one is refused by name
 * (the field in the message) before anything is created: no folder, no port, no download, no
 * process. Through LocalServices.start and TemplateCache.ensure, the entry points.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentNameError, checkStartNames } from '../../src/agent/names';
import { LocalServices, type ServiceLauncher } from '../../src/agent/local-services';
import { TemplateCache } from '../../src/agent/template-cache';
import type { StartServiceMessage } from '../../src/cluster/protocol';
import { defaultConfig } from '../../src/config/schema';
import { createLogger } from '../../src/log';
import { tempDir } from '../support/controller';

const tmp = tempDir('svc-agent-names-');
/** Templates asked of the fake cache, by name. */
const downloads: string[] = [];
/** What reached this server: the controller URL the services see. Nothing may. */
const requests: string[] = [];
const server = Bun.serve({
  port: 0,
  fetch(request) {
    requests.push(new URL(request.url).pathname);
    return Response.json({ message: 'no templates here' }, { status: 500 });
  },
});
afterAll(() => {
  server.stop(true);
  tmp.remove();
});

const HASH = 'a'.repeat(64);
const good: StartServiceMessage = {
  type: 'START_SERVICE',
  requestId: 'r1',
  serviceName: 'Lobby-1',
  groupName: 'Lobby',
  isStatic: true,
  software: 'PAPER',
  version: '1.21.1',
  memory: '1G',
  jvmArgs: [],
  jvmOptimize: false,
  jarName: 'server.jar',
  javaPath: '',
  startCommand: [],
  templates: [
    { name: 'global', hash: HASH },
    { name: 'Lobby.v2', hash: HASH },
  ],
  forwarding: { mode: 'modern', secret: 's' },
  pullState: true,
  syncExcludes: [],
  env: {},
};

const long = 'x'.repeat(65);
const hostile = ['', '.', '..', '../x', '../../etc/passwd', '/etc/passwd', 'a/b', 'a\\b', '..\\..\\x', 'a\0b', 'a\nb', ' a', '%2e%2e', 'a b'];
type Row = { field: string; change: Partial<StartServiceMessage>; label: string };
const rows: Row[] = [
  ...hostile.map((v) => ({ field: 'serviceName', change: { serviceName: v }, label: JSON.stringify(v) })),
  ...['Lobby-1/..', 'Lobby-1/../../x', 'Lobby-0', 'Lobby-01', 'Lobby-1.', '.Lobby-1', 'Lobby-1 ', 'Lobby-1-2', 'Lobby-', 'Lobby', 'Other-1', 'Lobby-１', `Lobby-${'9'.repeat(10)}`, `${long}-1`].map((v) => ({
    field: 'serviceName',
    change: { serviceName: v },
    label: JSON.stringify(v),
  })),
  ...[...hostile, 'Lob.by', long, 'Lobby/..'].map((v) => ({ field: 'groupName', change: { groupName: v }, label: JSON.stringify(v) })),
  ...[...hostile, '.hidden', long, 'a/..'].map((v) => ({ field: 'templates[1] name', change: { templates: [good.templates[0]!, { name: v, hash: HASH }] }, label: JSON.stringify(v) })),
  ...['', '..', '../x', 'ab/cd', 'a.b', 'a\\b', 'x'.repeat(129)].map((v) => ({ field: 'templates[0] hash', change: { templates: [{ name: 'global', hash: v }] }, label: JSON.stringify(v) })),
  ...['../x.jar', '/abs.jar', '.hidden.jar', 'a/b.jar', 'a\\b.jar', '..'].map((v) => ({ field: 'jarName', change: { jarName: v }, label: JSON.stringify(v) })),
];
// A service name must also be an instance of the group it names.
rows.push({ field: 'serviceName', change: { serviceName: 'Lobby-1', groupName: 'Lob' }, label: 'Lobby-1 of group Lob' });

function fakeLauncher() {
  const calls: string[] = [];
  const launcher: ServiceLauncher = {
    isolation: { mode: 'none' } as unknown as ServiceLauncher['isolation'],
    vacate: async (name) => void calls.push(`vacate ${name}`),
    launch: async (spec) => {
      calls.push(`launch ${spec.name}`);
      throw new Error('no launches in this test');
    },
    reattach: async () => ({ kind: 'ended' }) as Awaited<ReturnType<ServiceLauncher['reattach']>>,
  };
  return { launcher, calls };
}

/** The cache as LocalServices sees it: every template asked for is recorded (as a download) and unavailable. */
function fakeTemplates(): TemplateCache {
  return {
    ensure: async (name: string) => {
      downloads.push(name);
      throw new Error(`template ${name}: unavailable in this test`);
    },
  } as unknown as TemplateCache;
}

function everything(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true }).map(String).sort();
}

describe('START_SERVICE names', () => {
  test('the names the controller makes pass', () => {
    expect(() => checkStartNames(good)).not.toThrow();
    expect(() => checkStartNames({ ...good, serviceName: `${'a'.repeat(64)}-123456789`, groupName: 'a'.repeat(64), jarName: '' })).not.toThrow();
    expect(() => checkStartNames({ ...good, serviceName: 'my_group-2-7', groupName: 'my_group-2' })).not.toThrow();
  });

  const root = join(tmp.dir, 'agent');
  mkdirSync(root);
  const { launcher, calls } = fakeLauncher();
  const pulls: string[] = [];
  const services = new LocalServices({
    dir: root,
    launcher,
    log: createLogger({ format: 'json', colored: false, level: 'silent', stdout: { write: () => undefined } }),
    templates: fakeTemplates(),
    java: defaultConfig().java,
    controllerUrl: server.url.href,
    backendPortStart: 45000,
    onLine: () => undefined,
    onExit: () => undefined,
    pullState: async (service) => void pulls.push(service),
  });

  for (const row of rows) {
    test(`${row.field} ${row.label}: refused, naming the field, nothing created`, async () => {
      const message = { ...good, ...row.change };
      const error = await services.start(message).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AgentNameError);
      expect((error as Error).message).toStartWith(`refused: ${row.field} `);
      // The message is one printable line whatever the name held.
      expect((error as Error).message).not.toMatch(/[\u0000-\u001f]/);
      expect(everything(root)).toEqual([]);
      expect(calls).toEqual([]);
      expect(pulls).toEqual([]);
      expect(downloads).toEqual([]);
      expect(requests).toEqual([]);
      expect(services.count).toBe(0);
    });
  }

  test('a good name gets past the check (and fails later, at the download, here)', async () => {
    await expect(services.start({ ...good, isStatic: false, pullState: false })).rejects.toThrow(/template global: unavailable/);
    expect(calls).toEqual(['vacate Lobby-1']);
    expect(downloads).toEqual(['global']);
    downloads.length = 0;
  });
});

describe('TemplateCache names', () => {
  const root = join(tmp.dir, 'cache-only');
  // The check comes before the cache uses where it downloads from: no source is needed to see it refuse.
  const cache = Reflect.construct(TemplateCache, [root]) as TemplateCache;
  const bad: [string, string, string][] = [
    ['..', HASH, 'name'],
    ['../../etc', HASH, 'name'],
    ['a/b', HASH, 'name'],
    ['', HASH, 'name'],
    ['.hidden', HASH, 'name'],
    ['x'.repeat(65), HASH, 'name'],
    ['lobby', '../../x', 'hash'],
    ['lobby', 'a/b', 'hash'],
    ['lobby', '', 'hash'],
    ['lobby', '..', 'hash'],
  ];
  for (const [name, hash, field] of bad) {
    test(`${JSON.stringify(name)}@${JSON.stringify(hash.slice(0, 12))}: refused (${field}) before any request or folder`, async () => {
      await expect(cache.ensure(name, hash, 'PAPER')).rejects.toThrow(new RegExp(`^refused: templates ${field} `));
      expect(existsSync(root)).toBe(false);
      expect(requests).toEqual([]);
    });
  }

  test('a planted folder beside the cache is not reachable by a name', async () => {
    // Even when the escaped path exists, ensure() does not hand it out as a template.
    mkdirSync(join(tmp.dir, 'outside@x'), { recursive: true });
    writeFileSync(join(tmp.dir, 'outside@x', 'start.sh'), 'echo owned');
    await expect(cache.ensure('../outside', 'x', 'PAPER')).rejects.toThrow(AgentNameError);
  });
});

describe('services.json from an older agent', () => {
  test('an entry whose name is not an instance name is not re-attached and its folder is left alone', async () => {
    const root = join(tmp.dir, 'recover');
    const outside = join(tmp.dir, 'recover-outside');
    mkdirSync(join(root, 'data'), { recursive: true });
    mkdirSync(outside);
    writeFileSync(join(outside, 'keep.txt'), 'mine');
    writeFileSync(join(root, 'data', 'services.json'), JSON.stringify([{ serviceName: '../../x', groupName: 'x', port: 45001, workDir: outside, stateDir: join(outside, '.svc'), isStatic: false, startedAt: 0 }]));
    const { launcher, calls } = fakeLauncher();
    const lines: string[] = [];
    const services = new LocalServices({
      dir: root,
      launcher,
      log: createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => lines.push(line) } }),
      templates: fakeTemplates(),
      java: defaultConfig().java,
      controllerUrl: server.url.href,
      backendPortStart: 45000,
      onLine: () => undefined,
      onExit: () => undefined,
    });
    await services.recover();
    expect(services.count).toBe(0);
    expect(calls).toEqual([]);
    expect(everything(outside)).toEqual(['keep.txt']);
    expect(lines.join('')).toContain('not re-attached, left as it is');
  });
});

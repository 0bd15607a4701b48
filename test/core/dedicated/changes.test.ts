import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DedicatedChanges, type DedicatedRecordState } from '../../../src/core/dedicated/changes';
import type { DedicatedBody, DedicatedPatch } from '../../../src/core/dedicated/model';
import { DedicatedStore } from '../../../src/core/dedicated/store';
import type { Group, GroupBody } from '../../../src/core/groups/model';
import { GroupStore } from '../../../src/core/groups/store';
import type { CommandPlan } from '../../../src/core/services/manager-deps';
import { ApiError } from '../../../src/errors';
import { EventBus } from '../../../src/events/bus';

const survival = { name: 'Survival', port: 25570, software: 'PAPER', version: '1.21.1' } as DedicatedBody;

/** Dedicated starts are not under test: the preparer is never asked. */
const preparer = {
  patch(_group: Group, _service: { port: number; workDir: string }): void {},
  plan(): CommandPlan {
    return { argv: [], env: {} };
  },
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real store in a temp dir; every event and every stop is written down with what the disk held then. */
function setup(options: { record?: DedicatedRecordState; groups?: GroupBody[] } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-dedicated-changes-'));
  dirs.push(dir);
  const configDir = join(dir, 'config', 'dedicated');
  const groups = new GroupStore(join(dir, 'config', 'groups'));
  groups.load();
  for (const body of options.groups ?? []) groups.create(body);
  const dedicated = new DedicatedStore({ configDir, root: join(dir, 'dedicated'), groups, preparer });
  dedicated.load();
  const fileOf = (name: string) => join(configDir, `${name}.toml`);
  const onDisk = (name: string) => (existsSync(fileOf(name)) ? 'present' : 'absent');
  const bus = new EventBus();
  const trace: string[] = [];
  bus.subscribe((event) => {
    const name = (event.data as { name?: string }).name ?? '';
    trace.push(`${event.type} ${name} by ${event.actor} (file ${onDisk(name)})`);
  });
  const changes = new DedicatedChanges({
    dedicated,
    bus,
    recordOf: () => options.record,
    stop: async (name, actor) => void trace.push(`stop ${name} by ${actor} (file ${onDisk(name)})`),
  });
  return { dir, dedicated, changes, trace, fileOf };
}

function codeOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return error instanceof ApiError ? error.errorCode : String(error);
  }
  return 'none';
}

async function codeOfAsync(work: () => Promise<unknown>): Promise<string> {
  return work().then(
    () => 'none',
    (error: unknown) => (error instanceof ApiError ? error.errorCode : String(error)),
  );
}

describe('DedicatedChanges: write, persist, then publish', () => {
  test('create provisions the directory, writes the file, then publishes DEDICATED_CREATED with the actor', () => {
    const { dir, changes, trace, fileOf } = setup();
    const config = changes.create(survival, 'api:admin');
    expect(config.name).toBe('Survival');
    expect(readFileSync(fileOf('Survival'), 'utf8')).toContain('25570');
    expect(readFileSync(join(dir, 'dedicated', 'Survival', 'eula.txt'), 'utf8')).toContain('eula=true');
    expect(trace).toEqual(['DEDICATED_CREATED Survival by api:admin (file present)']);
  });

  const lobby = { name: 'Lobby', software: 'PAPER', version: '1.21.1', minInstances: 1, maxInstances: 3, memory: '2G' } as GroupBody;
  const refusedCreates: { name: string; body: DedicatedBody; groups?: GroupBody[]; code: string }[] = [
    { name: 'a group has the name', body: { ...survival, name: 'Lobby' }, groups: [lobby], code: 'VALIDATION_FAILED' },
    { name: 'the name is shaped like a group instance', body: { ...survival, name: 'Lobby-2' }, groups: [lobby], code: 'VALIDATION_FAILED' },
  ];
  for (const c of refusedCreates) {
    test(`create is refused when ${c.name}: no file, no event`, () => {
      const { changes, trace, fileOf } = setup({ groups: c.groups });
      expect(codeOf(() => changes.create(c.body, 'api:admin'))).toBe(c.code);
      expect(existsSync(fileOf(c.body.name))).toBe(false);
      expect(trace).toEqual([]);
    });
  }

  const takenCreates: { name: string; body: DedicatedBody; code: string }[] = [
    { name: 'a name taken', body: survival, code: 'DEDICATED_ALREADY_EXISTS' },
    { name: 'a name taken but for case', body: { ...survival, name: 'SURVIVAL', port: 25571 }, code: 'DEDICATED_ALREADY_EXISTS' },
    { name: 'a port taken', body: { ...survival, name: 'Creative' }, code: 'DEDICATED_PORT_IN_USE' },
  ];
  for (const c of takenCreates) {
    test(`create of ${c.name} is 409 and announces nothing new`, () => {
      const { changes, trace } = setup();
      changes.create(survival, 'console');
      expect(codeOf(() => changes.create(c.body, 'console'))).toBe(c.code);
      expect(trace).toHaveLength(1);
    });
  }

  test('update writes the merged config and publishes nothing (the catalogue has no update event)', () => {
    const { changes, trace, fileOf } = setup();
    changes.create(survival, 'console');
    const config = changes.update('Survival', { version: '1.21.4' } satisfies DedicatedPatch);
    expect(config.version).toBe('1.21.4');
    expect(config.port).toBe(25570);
    expect(readFileSync(fileOf('Survival'), 'utf8')).toContain('1.21.4');
    expect(trace).toHaveLength(1);
  });

  test('update of an unknown service is 404', () => {
    const { changes, trace } = setup();
    expect(codeOf(() => changes.update('Nope', { version: '1.21.4' } satisfies DedicatedPatch))).toBe('DEDICATED_NOT_FOUND');
    expect(trace).toEqual([]);
  });

  test('delete of a service without a record removes the file, keeps the directory, then publishes DEDICATED_DELETED', async () => {
    const { dir, changes, trace } = setup();
    changes.create(survival, 'console');
    await changes.delete('Survival', 'api:admin');
    expect(existsSync(join(dir, 'dedicated', 'Survival'))).toBe(true);
    expect(trace.slice(1)).toEqual(['DEDICATED_DELETED Survival by api:admin (file absent)']);
  });

  test('delete of a crashed service clears its record after the file goes, then publishes', async () => {
    const { changes, trace } = setup({ record: { state: 'CRASHED' } });
    changes.create(survival, 'console');
    await changes.delete('Survival', 'api:admin');
    expect(trace.slice(1)).toEqual(['stop Survival by api:admin (file absent)', 'DEDICATED_DELETED Survival by api:admin (file absent)']);
  });

  test('delete is refused while the service is active: the file stays, nothing is stopped or published', async () => {
    const { changes, trace, fileOf } = setup({ record: { state: 'READY' } });
    changes.create(survival, 'console');
    expect(await codeOfAsync(() => changes.delete('Survival', 'api:admin'))).toBe('DEDICATED_ALREADY_RUNNING');
    expect(existsSync(fileOf('Survival'))).toBe(true);
    expect(trace).toHaveLength(1);
  });

  test('delete of an unknown service is 404 and publishes nothing', async () => {
    const { changes, trace } = setup();
    expect(await codeOfAsync(() => changes.delete('Nope', 'console'))).toBe('DEDICATED_NOT_FOUND');
    expect(trace).toEqual([]);
  });
});

import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GroupChanges } from '../../../src/core/groups/changes';
import type { GroupBody, GroupPatch } from '../../../src/core/groups/model';
import { GroupStore } from '../../../src/core/groups/store';
import { ApiError } from '../../../src/errors';
import { EventBus } from '../../../src/events/bus';

const lobby = { name: 'Lobby', software: 'PAPER', version: '1.21.1', minInstances: 1, maxInstances: 3, memory: '2G' } as GroupBody;

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A real store in a temp dir; every event is written down with what the disk held when it was published. */
function setup(options: { dedicated?: string[]; running?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-group-changes-'));
  dirs.push(dir);
  const groups = new GroupStore(dir);
  groups.load();
  const bus = new EventBus();
  const trace: string[] = [];
  bus.subscribe((event) => {
    const group = (event.data as { group?: string }).group ?? '';
    trace.push(`${event.type} ${group} by ${event.actor} (file ${existsSync(join(dir, `${group}.toml`)) ? 'present' : 'absent'})`);
  });
  const changes = new GroupChanges({
    groups,
    bus,
    dedicated: { get: (name) => (options.dedicated ?? []).includes(name) || undefined },
    runningInstances: () => options.running ?? 0,
    drainPool: async (group) => void trace.push(`drain ${group} (file ${existsSync(join(dir, `${group}.toml`)) ? 'present' : 'absent'})`),
  });
  return { dir, groups, changes, trace };
}

function codeOf(work: () => unknown): string {
  try {
    work();
  } catch (error) {
    return error instanceof ApiError ? error.errorCode : String(error);
  }
  return 'none';
}

describe('GroupChanges: write, persist, then publish', () => {
  test('create writes the file, then publishes GROUP_CREATED with the actor', () => {
    const { dir, changes, trace } = setup();
    const group = changes.create(lobby, 'console');
    expect(group.name).toBe('Lobby');
    expect(readFileSync(join(dir, 'Lobby.toml'), 'utf8')).toContain('1.21.1');
    expect(trace).toEqual(['GROUP_CREATED Lobby by console (file present)']);
  });

  const refusedCreates: { name: string; body: GroupBody; dedicated?: string[]; code: string }[] = [
    { name: 'a dedicated service has the name', body: lobby, dedicated: ['Lobby'], code: 'GROUP_ALREADY_EXISTS' },
    { name: 'the fields contradict each other', body: { ...lobby, minInstances: 5, maxInstances: 2 }, code: 'VALIDATION_FAILED' },
  ];
  for (const c of refusedCreates) {
    test(`create is refused when ${c.name}: no file, no event`, () => {
      const { dir, changes, trace } = setup({ dedicated: c.dedicated });
      expect(codeOf(() => changes.create(c.body, 'api:admin'))).toBe(c.code);
      expect(existsSync(join(dir, 'Lobby.toml'))).toBe(false);
      expect(trace).toEqual([]);
    });
  }

  test('create of a name taken by a group is 409 and announces nothing new', () => {
    const { changes, trace } = setup();
    changes.create(lobby, 'console');
    expect(codeOf(() => changes.create(lobby, 'console'))).toBe('GROUP_ALREADY_EXISTS');
    expect(trace).toHaveLength(1);
  });

  test('update writes the merged group, then publishes GROUP_UPDATED', () => {
    const { dir, changes, trace } = setup();
    changes.create(lobby, 'console');
    const group = changes.update('Lobby', { maxInstances: 7 } satisfies GroupPatch, 'api:admin');
    expect(group.maxInstances).toBe(7);
    expect(group.memory).toBe('2G');
    expect(readFileSync(join(dir, 'Lobby.toml'), 'utf8')).toMatch(/7/);
    expect(trace.at(-1)).toBe('GROUP_UPDATED Lobby by api:admin (file present)');
  });

  test('update of an unknown group is 404 and publishes nothing', () => {
    const { changes, trace } = setup();
    expect(codeOf(() => changes.update('Nope', { maxInstances: 2 } satisfies GroupPatch, 'console'))).toBe('GROUP_NOT_FOUND');
    expect(trace).toEqual([]);
  });

  test('delete removes the file, drains the warm pool, then publishes GROUP_DELETED', async () => {
    const { changes, trace } = setup();
    changes.create(lobby, 'console');
    await changes.delete('Lobby', 'api:admin');
    expect(trace.slice(1)).toEqual(['drain Lobby (file absent)', 'GROUP_DELETED Lobby by api:admin (file absent)']);
  });

  test('delete is refused while instances run: the file stays, nothing is drained or published', async () => {
    const { dir, changes, trace } = setup({ running: 2 });
    changes.create(lobby, 'console');
    const refused = await changes.delete('Lobby', 'api:admin').then(
      () => 'none',
      (error: unknown) => (error instanceof ApiError ? error.errorCode : String(error)),
    );
    expect(refused).toBe('GROUP_HAS_RUNNING_INSTANCES');
    expect(existsSync(join(dir, 'Lobby.toml'))).toBe(true);
    expect(trace).toHaveLength(1);
  });
});

/**
 * A module's own contract: the codes and events it declares in its folder (moduleErrors,
 * moduleEvents), what core does with them once registered, and what it refuses. Names here are
 * the test's own (TEST_*), so they never meet a real module's.
 */
import { describe, expect, test } from 'bun:test';
import { isAudited } from '../../src/core/audit/recorder';
import { ApiError, isKnownErrorCode, moduleErrors, registerErrorCodes, statusOf } from '../../src/errors';
import { EventBus } from '../../src/events/bus';
import { registerModuleEvents, specOf, type EventType, type SvcEvent } from '../../src/events/catalogue';
import { moduleEvents, O, R } from '../../src/events/module-events';
import type { LazyModule } from '../../src/modules/module';
import { ModuleRegistry } from '../../src/modules/registry';
import { EVENTS_NOT_FORWARDED } from '../../src/ws/console-protocol';

const NOTE_EVENTS = moduleEvents('test-notes', {
  TEST_NOTE_ADDED: { keys: { id: R, text: O } },
  TEST_NOTE_SEEN: { keys: { id: R }, audit: 'never' },
  TEST_NOTE_PINNED: { keys: { id: R, board: R }, auditTarget: 'board' },
  TEST_NOTE_SECRET: { keys: { link: R }, audit: 'never', audience: 'proxy' },
});

const NOTE_ERRORS = moduleErrors({ TEST_NOTE_NOT_FOUND: 404, TEST_NOTE_LOCKED: 423 });

/** The test's events are not in ModuleEventCatalogue (no merge here): published by name, as a third-party module's would be. */
const publish = (bus: EventBus, type: string, data: Record<string, string | number>, actor: SvcEvent['actor'] = 'system') =>
  bus.publish(type as EventType, data as never, actor);

describe('moduleEvents', () => {
  test('declaring registers: the bus folds the module id in and keeps only declared keys', () => {
    const bus = new EventBus();
    const seen: SvcEvent[] = [];
    bus.subscribe((event) => void seen.push(event));
    publish(bus, 'TEST_NOTE_ADDED', { id: 7, text: 'hi', stray: 'x' });
    publish(bus, 'TEST_NOTE_SEEN', { id: 7, moduleId: 'test-notes' });
    expect(seen.map((e): [string, Record<string, string>] => [e.type, e.data])).toEqual([
      ['TEST_NOTE_ADDED', { id: '7', text: 'hi', moduleId: 'test-notes' }],
      ['TEST_NOTE_SEEN', { id: '7', moduleId: 'test-notes' }],
    ]);
  });

  test('the table names its owner, adds moduleId as an optional key last, and audits by default', () => {
    expect(NOTE_EVENTS.TEST_NOTE_ADDED).toEqual({ keys: { id: 'required', text: 'optional', moduleId: 'optional' }, audit: 'always', module: 'test-notes' });
    expect(specOf('TEST_NOTE_PINNED')).toMatchObject({ audit: 'always', auditTarget: 'board', module: 'test-notes' });
    const ev = (type: string, actor: SvcEvent['actor']): SvcEvent => ({ type: type as EventType, actor, data: {}, timestamp: '' });
    expect([isAudited(ev('TEST_NOTE_ADDED', 'system')), isAudited(ev('TEST_NOTE_SEEN', 'api:admin'))]).toEqual([true, false]);
  });

  test('an event meant for the proxy only is kept off consoles; the others reach them', () => {
    expect([EVENTS_NOT_FORWARDED.has('TEST_NOTE_SECRET'), EVENTS_NOT_FORWARDED.has('TEST_NOTE_ADDED'), EVENTS_NOT_FORWARDED.has('NODE_HEARTBEAT')]).toEqual([true, false, true]);
  });

  test('a core event name, or one another module has, is refused; the same table again is not', () => {
    expect(() => moduleEvents('test-notes', { GROUP_CREATED: { keys: { group: R } } })).toThrow('already a core event');
    expect(() => moduleEvents('test-other', { TEST_NOTE_ADDED: { keys: { id: R } } })).toThrow('declared by both module test-notes and module test-other');
    expect(() => registerModuleEvents(NOTE_EVENTS)).not.toThrow();
  });
});

describe('moduleErrors', () => {
  test('declaring registers: an ApiError of the code has its status', () => {
    expect(NOTE_ERRORS).toEqual({ TEST_NOTE_NOT_FOUND: 404, TEST_NOTE_LOCKED: 423 });
    expect([new ApiError('TEST_NOTE_LOCKED', 'x').status, statusOf('TEST_NOTE_NOT_FOUND'), isKnownErrorCode('TEST_NOTE_LOCKED')]).toEqual([423, 404, true]);
  });

  test('two modules may declare one code with one status; a second status or a core code is refused', () => {
    expect(() => moduleErrors({ TEST_NOTE_NOT_FOUND: 404 })).not.toThrow();
    expect(() => registerErrorCodes({ TEST_NOTE_NOT_FOUND: 410 })).toThrow('declared with status 404 and 410');
    expect(() => moduleErrors({ GROUP_NOT_FOUND: 404 })).toThrow('already a core code');
  });
});

describe('the registry', () => {
  test("registers a compiled-in module's contract from its manifest, installed or not, before its code loads", () => {
    let loads = 0;
    // The tables as a module's manifest carries them, built without moduleEvents/moduleErrors (which register on their own).
    const lazy: LazyModule = {
      id: 'test-shelf',
      name: 'Shelf',
      version: '1.0.0',
      description: 'never installed here',
      errors: { TEST_SHELF_FULL: 409 },
      events: { TEST_SHELF_FILLED: { keys: { shelf: R, moduleId: O }, audit: 'always', module: 'test-shelf' } },
      load: async () => {
        loads += 1;
        throw new Error('not loaded in this test');
      },
    };
    expect([statusOf('TEST_SHELF_FULL'), specOf('TEST_SHELF_FILLED')]).toEqual([500, undefined]);
    new ModuleRegistry([lazy]);
    expect([statusOf('TEST_SHELF_FULL'), specOf('TEST_SHELF_FILLED')?.module, loads]).toEqual([409, 'test-shelf', 0]);
  });

  test('refuses a module whose event names another module as its owner', () => {
    const lazy: LazyModule = {
      id: 'test-crate',
      name: 'Crate',
      version: '1.0.0',
      description: 'claims an event of another module',
      events: { TEST_CRATE_OPENED: { keys: { crate: R }, audit: 'never', module: 'test-shelf' } },
      load: async () => {
        throw new Error('never loaded');
      },
    };
    expect(() => new ModuleRegistry([lazy])).toThrow('module "test-crate" declares event TEST_CRATE_OPENED, which names module "test-shelf" as its owner');
  });
});

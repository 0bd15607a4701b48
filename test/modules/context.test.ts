import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BUILTIN_MODULES } from '../../src/modules/builtin';
import { kernelBehind, kernelView } from '../../src/modules/kernel-view';
import { defineModule, type KernelMember, type ModuleContext, type SvcModule } from '../../src/modules/module';
import type { authModule } from '../../src/modules/auth';
import type { backupModule } from '../../src/modules/backup';
import type { displayModule } from '../../src/modules/display';
import type { DisplayKernel } from '../../src/modules/display/uses';
import type { permsModule } from '../../src/modules/perms';
import type { playersModule } from '../../src/modules/players';
import type { punishmentsModule } from '../../src/modules/punishments';
import type { resourcePacksModule } from '../../src/modules/resourcepacks';
import type { scalingModule } from '../../src/modules/scaling';
import { startController, type TestController } from '../support/controller';

/*
 * The narrow module context. Half of this file is checked by the compiler (`bun run typecheck`):
 * each `@ts-expect-error` below must meet an error, so a context that reaches more of the kernel
 * than its module declared fails the type check, and the exact lists below fail it when a
 * module's `uses` changes without this file.
 */

/** True when A and B are the same type (not merely assignable one way). */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** The kernel members a module's hooks can reach. */
type Reachable<M> = M extends SvcModule<infer U> ? keyof ModuleContext<U>['kernel'] : never;

// What each built-in module declares, and so all its hooks can reach.
const declared: [
  Equal<Reachable<typeof authModule>, 'bus' | 'config' | 'db' | 'dir' | 'modules' | 'paths'>,
  Equal<Reachable<typeof backupModule>, 'apiToken' | 'bus' | 'config' | 'configPath' | 'dashboardMetrics' | 'db' | 'dedicated' | 'dir' | 'manager' | 'paths' | 'services' | 'stateSync'>,
  Equal<Reachable<typeof displayModule>, 'bus' | 'dir' | 'groups'>,
  Equal<Reachable<typeof permsModule>, 'bus' | 'db' | 'modules'>,
  Equal<Reachable<typeof playersModule>, 'bus' | 'db' | 'modules' | 'players' | 'services'>,
  Equal<Reachable<typeof punishmentsModule>, 'bus' | 'config' | 'db' | 'dir' | 'modules' | 'network'>,
  Equal<Reachable<typeof resourcePacksModule>, 'bus' | 'config' | 'db' | 'dir' | 'paths'>,
  Equal<Reachable<typeof scalingModule>, 'bus' | 'db' | 'dir' | 'groups' | 'scaling' | 'services'>,
] = [true, true, true, true, true, true, true, true];

/** A module that declares only the database: its hooks reach `db` and nothing else of the kernel. */
const notes = defineModule({
  id: 'ctx-notes',
  name: 'Context notes',
  version: '1.0.0',
  description: 'declares the database only',
  uses: ['db'],
  migrations: [{ version: 1, name: 'notes', sql: 'CREATE TABLE ctx_notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);' }],
  init(ctx) {
    ctx.kernel.db.run("INSERT INTO ctx_notes (text) VALUES ('first')");
    seen.push(ctx.kernel);
  },
  stop(ctx) {
    seen.push(ctx.kernel);
  },
});
const seen: object[] = [];

/** Never called: what the compiler must refuse. */
function refusedByTheCompiler(ctx: ModuleContext<'db'>, display: DisplayKernel): void {
  // @ts-expect-error the module did not declare `services`
  ctx.kernel.services.all();
  // @ts-expect-error nor `bus`
  ctx.kernel.bus.publish('MODULE_LOADED', { moduleId: 'x', moduleName: 'x', moduleVersion: '1' });
  // @ts-expect-error a helper given the display module's kernel cannot reach the database
  display.db.query('SELECT 1');
  defineModule({
    id: 'x',
    name: 'x',
    version: '1',
    description: 'x',
    // @ts-expect-error `uses` names kernel members only
    uses: ['nope'],
  });
  // @ts-expect-error `defineModule` requires `uses`
  defineModule({ id: 'x', name: 'x', version: '1', description: 'x' });
  defineModule({
    id: 'x',
    name: 'x',
    version: '1',
    description: 'x',
    uses: ['groups'],
    // @ts-expect-error a hook reaches only what `uses` lists
    routes: (hook) => (hook.kernel.db ? [] : []),
  });
}

describe('the module context', () => {
  test('the compile-time checks above hold (bun run typecheck)', () => {
    expect(declared.every(Boolean)).toBe(true);
  });

  test('every built-in module declares the kernel members it uses, each once', async () => {
    for (const entry of BUILTIN_MODULES) {
      const module = await entry.load();
      const uses: readonly KernelMember[] = module.uses ?? [];
      expect({ id: module.id, declared: uses.length > 0 }).toEqual({ id: entry.id, declared: true });
      expect(new Set(uses).size).toBe(uses.length);
    }
  });

  describe('on a controller', () => {
    let c: TestController;
    beforeAll(async () => {
      c = await startController({ modules: [notes] });
    });
    afterAll(() => c.stop());

    test('a module declaring only the database works through it, and its context holds nothing else of the kernel', () => {
      const rows = c.controller.kernel.db.query<{ text: string }, []>('SELECT text FROM ctx_notes').all();
      expect(rows).toEqual([{ text: 'first' }]);
      const view = seen[0]!;
      expect(Object.keys(view)).toEqual(['db']);
      expect('services' in view).toBe(false);
      expect(kernelBehind(view)).toBe(c.controller.kernel);
    });

    test('a view reads each member from the kernel when it is read, is frozen, and leads back to its kernel', () => {
      const kernel = c.controller.kernel;
      const view = kernelView(kernel, ['db', 'bus', 'proxyUpdates', 'db']);
      expect(Object.keys(view).sort()).toEqual(['bus', 'db', 'proxyUpdates']);
      expect([view.db, view.bus]).toEqual([kernel.db, kernel.bus]);
      expect(Object.isFrozen(view)).toBe(true);
      const before = kernel.proxyUpdates;
      try {
        kernel.proxyUpdates = undefined;
        expect(view.proxyUpdates).toBeUndefined();
      } finally {
        kernel.proxyUpdates = before;
      }
      expect(view.proxyUpdates).toBe(before);
      expect([kernelBehind(view), kernelBehind(kernel)]).toEqual([kernel, kernel]);
    });

    test('every member a built-in module declares is on the kernel', async () => {
      for (const entry of BUILTIN_MODULES) {
        const module = await entry.load();
        for (const member of module.uses ?? []) expect({ module: module.id, member, present: member in c.controller.kernel }).toEqual({ module: module.id, member, present: true });
      }
    });
  });
});

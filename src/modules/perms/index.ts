import type { Kernel } from '../../kernel';
import type { ModuleContext, SvcModule } from '../module';
import { permsCommand } from './commands';
import { permsDoctorSection } from './doctor';
import { permsRoutes } from './routes';
import { PermsRuntime } from './runtime';
import perms0001 from './migrations/0001_perms.sql' with { type: 'text' };

/** One runtime per controller: a module object is shared by every controller of a process (tests run several). */
const runtimes = new WeakMap<Kernel, PermsRuntime>();
const runtimeOf = (ctx: ModuleContext) => {
  const runtime = runtimes.get(ctx.kernel);
  if (!runtime) throw new Error('the permissions module was used before its init');
  return runtime;
};

/**
 * Permission groups with scoped and expiring grants, players' memberships, tracks and meta:
 * what the proxy bridge and the backend perms plugin apply, and what dashboard logins resolve
 * against (the `perms` service).
 */
export const permsModule: SvcModule = {
  id: 'perms',
  name: 'Permissions',
  version: '1.0.0',
  description: 'Permission groups, contexts, tracks and meta for proxies, backends and dashboard logins',
  migrations: [{ version: 1, name: 'perms', sql: perms0001 }],
  dashboard: {
    title: 'Permissions',
    icon: 'Shield',
    apiPrefix: '/api/permissions',
    sections: [
      { title: 'Groups', type: 'table', endpoint: '/groups' },
      { title: 'Tracks', type: 'table', endpoint: '/tracks' },
    ],
    pages: [{ path: '/modules/perms', title: 'Permissions' }],
  },
  init(ctx) {
    const runtime = new PermsRuntime(ctx.kernel, ctx.log);
    runtimes.set(ctx.kernel, runtime);
    ctx.kernel.modules.provide('perms', runtime.resolver());
  },
  ready: (ctx) => runtimeOf(ctx).start(),
  routes: (ctx) => permsRoutes(runtimeOf(ctx)),
  commands: (ctx) => [permsCommand(runtimeOf(ctx))],
  doctorChecks: (ctx) => [permsDoctorSection(runtimeOf(ctx).state)],
  stop(ctx) {
    runtimes.get(ctx.kernel)?.stop();
    runtimes.delete(ctx.kernel);
  },
};

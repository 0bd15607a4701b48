import { defineModule } from '../module';
import { PERMS_USES } from './uses';
import { PERMS_MANIFEST } from './manifest';
import { PerController } from '../per-controller';
import { permsCommand } from './commands';
import { permsDoctorSection } from './doctor';
import { permsRoutes } from './routes';
import { PermsRuntime } from './runtime';
import perms0001 from './migrations/0001_perms.sql' with { type: 'text' };

const runtimes = new PerController<PermsRuntime>('permissions');

/**
 * Permission groups with scoped and expiring grants, players' memberships, tracks and meta:
 * what the proxy bridge and the backend perms plugin apply, and what dashboard logins resolve
 * against (the `perms` service).
 */
export const permsModule = defineModule({
  ...PERMS_MANIFEST,
  uses: PERMS_USES,
  migrations: [{ version: 1, name: 'perms', sql: perms0001 }],
  init(ctx) {
    const runtime = new PermsRuntime(ctx.kernel, ctx.log);
    runtimes.set(ctx, runtime);
    ctx.kernel.modules.provide('perms', runtime.resolver());
  },
  ready: (ctx) => runtimes.of(ctx).start(),
  routes: (ctx) => permsRoutes(runtimes.of(ctx)),
  commands: (ctx) => [permsCommand(runtimes.of(ctx))],
  doctorChecks: (ctx) => [permsDoctorSection(runtimes.of(ctx).state)],
  stop(ctx) {
    runtimes.take(ctx)?.stop();
  },
});

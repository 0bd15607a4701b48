import { defineModule } from '../module';
import { AUTH_USES } from './uses';
import { AUTH_MANIFEST } from './manifest';
import { PerController } from '../per-controller';
import { dashboardCommand } from './commands';
import { asStatic } from '../../config/unit/sections';
import { AuthConfigSchema } from './config';
import { authDoctorSection } from './doctor';
import { authRoutes } from './routes';
import { AuthRuntime } from './runtime';
import { AUTH_MIGRATIONS } from './schema';

const runtimes = new PerController<AuthRuntime>('auth');

/**
 * Dashboard login with the game account: a code or a magic link from in game, an optional
 * TOTP step, or a passkey; the sessions it issues are credentials on every route and socket,
 * limited to the permission nodes the player holds (permissions module).
 */
export const authModule = defineModule({
  ...AUTH_MANIFEST,
  uses: AUTH_USES,
  configSchema: AuthConfigSchema,
  migrations: AUTH_MIGRATIONS,
  init(ctx) {
    const runtime = new AuthRuntime(ctx.kernel, asStatic(AuthConfigSchema, ctx.config), ctx.log);
    runtimes.set(ctx, runtime);
    ctx.kernel.modules.provide('sessions', runtime.sessions);
  },
  routes: (ctx) => authRoutes(runtimes.of(ctx)),
  commands: (ctx) => [dashboardCommand(runtimes.of(ctx))],
  doctorChecks: (ctx) => [authDoctorSection(runtimes.of(ctx))],
  stop(ctx) {
    runtimes.take(ctx)?.stop();
  },
});

import { BACKUP_MANIFEST } from './manifest';
import type { Kernel } from '../../kernel';
import { defineModule } from '../module';
import { BACKUP_USES } from './uses';
import { PerController } from '../per-controller';
import { backupCommand } from './commands';
import { backupDoctorSection } from './doctor';
import { backupRoutes } from './routes';
import { BackupRuntime } from './runtime';
import backup0001 from './migrations/0001_backup.sql' with { type: 'text' };

const runtimes = new PerController<BackupRuntime>('backup');

/** A controller's backup runtime (tests drive its scheduler and wait for its runs). */
export const backupRuntimeOf = (kernel: Kernel): BackupRuntime => runtimes.of({ kernel });

/**
 * Backups: services, dedicated services, templates, the config, state sync copies and a
 * consistent copy of the database, as tar + zstd archives with a SHA-256 manifest; on
 * schedules (cron, in a time zone) with keep-N retention per class; verified and restored
 * through a staging folder so a failure leaves the target as it was.
 */
export const backupModule = defineModule({
  ...BACKUP_MANIFEST,
  uses: BACKUP_USES,
  migrations: [{ version: 1, name: 'backup', sql: backup0001 }],
  init(ctx) {
    runtimes.set(ctx, new BackupRuntime(ctx.kernel, ctx.log, ctx.dir));
  },
  ready: (ctx) => runtimes.of(ctx).ready(),
  routes: (ctx) => backupRoutes(runtimes.of(ctx)),
  commands: (ctx) => [backupCommand(runtimes.of(ctx))],
  doctorChecks: (ctx) => [backupDoctorSection(runtimes.of(ctx), ctx.kernel.dir)],
  async stop(ctx) {
    await runtimes.take(ctx)?.stop();
  },
});

import { SCALING_MANIFEST } from './manifest';
import type { Kernel } from '../../kernel';
import { defineModule } from '../module';
import { SCALING_USES } from './uses';
import { PerController } from '../per-controller';
import { scalingCommand } from './commands';
import { scalingDoctorSection } from './doctor';
import { scalingRoutes } from './routes';
import { ScalingRuntime } from './runtime';
import scaling0001 from './migrations/0001_scaling.sql' with { type: 'text' };

const runtimes = new PerController<ScalingRuntime>('scaling');

/** A controller's smart scaling runtime (tests and benchmarks drive its samples and read its store). */
export const scalingRuntimeOf = (kernel: Kernel): ScalingRuntime => runtimes.of({ kernel });

/**
 * Smart scaling: per-group timetables that raise a group's minimum (in the group's time zone,
 * warmed up ahead), and predictions from the group's own history, fed into the core scaling
 * engine as its effective minimum so the two never fight. Samples each minute, 90 days kept;
 * every decision stored with its source and reason.
 */
export const scalingModule = defineModule({
  ...SCALING_MANIFEST,
  uses: SCALING_USES,
  migrations: [{ version: 1, name: 'scaling', sql: scaling0001 }],
  init(ctx) {
    const runtime = new ScalingRuntime(ctx.kernel, ctx.log, ctx.dir);
    runtime.start();
    runtimes.set(ctx, runtime);
  },
  routes: (ctx) => scalingRoutes(runtimes.of(ctx)),
  commands: (ctx) => [scalingCommand(runtimes.of(ctx))],
  doctorChecks: (ctx) => [scalingDoctorSection(runtimes.of(ctx), ctx.kernel.dir)],
  stop(ctx) {
    runtimes.take(ctx)?.stop();
  },
});

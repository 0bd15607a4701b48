import type { Kernel } from '../kernel';
import type { ModuleContext } from './module';

/**
 * A module's state for each controller. A module object is shared by every controller of a
 * process (tests run several), so what init builds is kept per kernel, not in the module.
 */
export class PerController<T> {
  private readonly byKernel = new WeakMap<Kernel, T>();

  constructor(private readonly moduleName: string) {}

  set(ctx: ModuleContext, value: T): T {
    this.byKernel.set(ctx.kernel, value);
    return value;
  }

  /** The state init built; a hook that runs before init is a programming error. */
  of(ctx: ModuleContext): T {
    const value = this.byKernel.get(ctx.kernel);
    if (value === undefined) throw new Error(`the ${this.moduleName} module was used before its init`);
    return value;
  }

  /** Forgets the state at stop and gives it back (undefined when init never ran). */
  take(ctx: ModuleContext): T | undefined {
    const value = this.byKernel.get(ctx.kernel);
    this.byKernel.delete(ctx.kernel);
    return value;
  }
}

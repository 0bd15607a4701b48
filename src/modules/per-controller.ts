import { kernelBehind } from './kernel-view';

/**
 * What identifies a controller to a module's state: the kernel view a hook's context carries,
 * or the kernel itself for a test or bench asking for a module's state
 * (`backupRuntimeOf(controller.kernel)`); both lead to the same kernel.
 */
interface OfController {
  readonly kernel: object;
}

/**
 * A module's state for each controller. A module object is shared by every controller of a
 * process (tests run several), so what init builds is kept per kernel, not in the module.
 */
export class PerController<T> {
  private readonly byKernel = new WeakMap<object, T>();

  constructor(private readonly moduleName: string) {}

  set(ctx: OfController, value: T): T {
    this.byKernel.set(kernelBehind(ctx.kernel), value);
    return value;
  }

  /** The state init built; a hook that runs before init is a programming error. */
  of(ctx: OfController): T {
    const value = this.byKernel.get(kernelBehind(ctx.kernel));
    if (value === undefined) throw new Error(`the ${this.moduleName} module was used before its init`);
    return value;
  }

  /** Forgets the state at stop and gives it back (undefined when init never ran). */
  take(ctx: OfController): T | undefined {
    const value = this.byKernel.get(kernelBehind(ctx.kernel));
    this.byKernel.delete(kernelBehind(ctx.kernel));
    return value;
  }
}

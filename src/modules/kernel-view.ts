import type { Kernel } from '../kernel';
import type { KernelMember, ModuleKernel } from './module';

/** Each view's kernel, so that a module's state can be found from either (PerController). */
const behind = new WeakMap<object, Kernel>();

/**
 * The kernel as a module that declared `uses` sees it: an object with those members and no
 * other, each read from the kernel at the moment it is read (so a member set after start, like
 * `loadBalancer`, and the live config read as they do on the kernel). The type narrows what a
 * module can name; the view makes an undeclared member undefined at run time as well.
 */
export function kernelView<U extends KernelMember>(kernel: Kernel, uses: readonly U[]): ModuleKernel<U> {
  const view = {};
  for (const member of new Set(uses)) {
    const read = (): Kernel[U] => kernel[member];
    Object.defineProperty(view, member, { get: read, enumerable: true });
  }
  Object.freeze(view);
  behind.set(view, kernel);
  // Every member of `uses` was defined on `view` just above: the object is what the type says.
  return view as ModuleKernel<U>;
}

/** The kernel a view was made from; the object itself when it is not a view (a kernel). */
export function kernelBehind(kernelOrView: object): object {
  return behind.get(kernelOrView) ?? kernelOrView;
}

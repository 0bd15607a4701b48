import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the resource packs module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const RESOURCEPACKS_USES = ['bus', 'config', 'db', 'dir', 'paths'] as const satisfies readonly KernelMember[];

/** The resource packs module's view of the kernel. */
export type ResourcePacksKernel = ModuleKernel<(typeof RESOURCEPACKS_USES)[number]>;

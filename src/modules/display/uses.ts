import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the display module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const DISPLAY_USES = ['bus', 'dir', 'groups'] as const satisfies readonly KernelMember[];

/** The display module's view of the kernel. */
export type DisplayKernel = ModuleKernel<(typeof DISPLAY_USES)[number]>;

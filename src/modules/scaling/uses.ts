import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the smart scaling module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const SCALING_USES = ['bus', 'db', 'dir', 'groups', 'scaling', 'services'] as const satisfies readonly KernelMember[];

/** The smart scaling module's view of the kernel. */
export type ScalingKernel = ModuleKernel<(typeof SCALING_USES)[number]>;

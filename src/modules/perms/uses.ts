import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the permissions module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const PERMS_USES = ['bus', 'db', 'modules'] as const satisfies readonly KernelMember[];

/** The permissions module's view of the kernel. */
export type PermsKernel = ModuleKernel<(typeof PERMS_USES)[number]>;

import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the auth module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const AUTH_USES = ['bus', 'config', 'db', 'dir', 'modules', 'paths'] as const satisfies readonly KernelMember[];

/** The auth module's view of the kernel. */
export type AuthKernel = ModuleKernel<(typeof AUTH_USES)[number]>;

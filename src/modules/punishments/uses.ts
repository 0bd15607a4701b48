import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the punishments module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const PUNISHMENTS_USES = ['bus', 'config', 'db', 'dir', 'modules', 'network'] as const satisfies readonly KernelMember[];

/** The punishments module's view of the kernel. */
export type PunishmentsKernel = ModuleKernel<(typeof PUNISHMENTS_USES)[number]>;

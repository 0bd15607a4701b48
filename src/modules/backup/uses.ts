import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the backup module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const BACKUP_USES = ['apiToken', 'bus', 'config', 'configPath', 'dashboardMetrics', 'db', 'dedicated', 'dir', 'manager', 'paths', 'services', 'stateSync'] as const satisfies readonly KernelMember[];

/** The backup module's view of the kernel. */
export type BackupKernel = ModuleKernel<(typeof BACKUP_USES)[number]>;

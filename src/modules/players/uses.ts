import type { KernelMember, ModuleKernel } from '../module';

/**
 * The kernel members the players module uses (its `uses`): its hooks' context, and the parts
 * they hand the kernel to, reach these and no other. Add a member here before using it.
 */
export const PLAYERS_USES = ['bus', 'db', 'modules', 'players', 'services'] as const satisfies readonly KernelMember[];

/** The players module's view of the kernel. */
export type PlayersKernel = ModuleKernel<(typeof PLAYERS_USES)[number]>;

/**
 * Game server processes that survive the controller (DESIGN.md, "Processes survive the
 * controller"): launch() starts one under a detached sh wrapper with a FIFO for stdin and a log
 * file for output; reattach() finds it again from its state dir after a controller restart.
 */
export { FifoPool } from './fifo-pool';
export { launch, SURVIVES_CONTROLLER } from './launch';
export { RING_CAPACITY } from './line-fanout';
export { reattach } from './reattach';
export type { ExitInfo, LaunchSpec, ProcessHandle, ReattachOptions, ReattachResult } from './types';

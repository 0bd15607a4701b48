import type { FifoPool } from './fifo-pool';
import { launchWithPipes } from './pipe-handle';
import { launchPosix } from './posix-launch';
import type { LaunchSpec, ProcessHandle } from './types';

/** True where launch() gives processes that survive the controller (everything but Windows). */
export const SURVIVES_CONTROLLER = process.platform !== 'win32';

/**
 * Starts a game server; resolves once it is spawned and its pid is known. A FIFO pool, when
 * given, saves the wrapper making the stdin FIFO itself.
 */
export function launch(spec: LaunchSpec, options: { fifos?: FifoPool } = {}): Promise<ProcessHandle> {
  if (spec.name.trim() === '') return Promise.reject(new Error('launch: name is empty'));
  if (spec.argv.length === 0 || spec.argv[0] === '') return Promise.reject(new Error(`${spec.name}: argv is empty`));
  return SURVIVES_CONTROLLER ? launchPosix(spec, options.fifos) : launchWithPipes(spec);
}

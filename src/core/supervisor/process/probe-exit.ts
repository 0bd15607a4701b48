import { readExitFile } from './exit-file';
import { pidAlive } from './pid-probe';
import type { ExitInfo } from './types';

export interface ExitProbeTarget {
  wrapperPid: number;
  pid: number;
  exitFile: string;
}

/**
 * Has the server ended, and how? undefined while it runs. The wrapper's exit-code file is the
 * answer when present. Without it, a live wrapper means the server runs (or is being recorded
 * right now). A dead wrapper without a record means someone SIGKILLed it: the server may live
 * on as an orphan (still running) or be gone too (ended, code unknown). The wrapper is checked
 * before the file, so a wrapper that records and exits between the two checks is never
 * mistaken for one that died without recording.
 */
export function probeExit(target: ExitProbeTarget): ExitInfo | undefined {
  const wrapperAlive = pidAlive(target.wrapperPid);
  const code = readExitFile(target.exitFile);
  if (code !== undefined) return { code };
  if (wrapperAlive || pidAlive(target.pid)) return undefined;
  return { code: null };
}

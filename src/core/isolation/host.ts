import { readFileSync } from 'node:fs';
import { setprivArgv } from './owner';
import type { Check, HostFacts } from './resolve';
import { discoverSandboxLayout, findSystemProgram, probeArgv, type SandboxLayout } from './sandbox';

/** The capabilities uid mode uses: switch to the service uid, chown its folder, signal and read it. */
const NEEDED_CAPS: readonly [number, string][] = [
  [0, 'CAP_CHOWN'],
  [1, 'CAP_DAC_OVERRIDE'],
  [3, 'CAP_FOWNER'],
  [5, 'CAP_KILL'],
  [6, 'CAP_SETGID'],
  [7, 'CAP_SETUID'],
];

/** A probe sandbox that does not answer within this is as good as none. */
const PROBE_TIMEOUT_MS = 5000;

/** The effective capability set of this process (Linux), or null elsewhere. */
function effectiveCaps(): bigint | null {
  try {
    const hex = /^CapEff:\s+([0-9a-f]+)/m.exec(readFileSync('/proc/self/status', 'latin1'))?.[1];
    return hex === undefined ? null : BigInt(`0x${hex}`);
  } catch {
    return null;
  }
}

/** How a probe ended: ok on exit 0, else its first line of stderr. */
function outcome(exitCode: number | null, stderr: string): Check {
  if (exitCode === 0) return { ok: true };
  const said = stderr.trim().split('\n')[0];
  return { ok: false, why: said || (exitCode === null ? `it did not finish within ${PROBE_TIMEOUT_MS} ms` : `it exited with ${exitCode}`) };
}

/** Runs a probe to its end, blocking (the offline doctor). */
function probe(argv: string[]): Check {
  try {
    const run = Bun.spawnSync(argv, { stdin: 'ignore', stdout: 'ignore', stderr: 'pipe', env: { PATH: '/usr/bin:/bin' }, timeout: PROBE_TIMEOUT_MS });
    return outcome(run.exitCode, run.stderr.toString());
  } catch (error) {
    return { ok: false, why: (error as Error).message };
  }
}

/**
 * The same without blocking: a start overlaps it with opening the database. No pipe is read
 * on the way (reading it kept ~0.4 MiB more resident for the life of the process, measured);
 * only a failed probe runs again, blocking, to say why.
 */
async function probeAsync(argv: string[]): Promise<Check> {
  try {
    const run = Bun.spawn(argv, { stdin: 'ignore', stdout: 'ignore', stderr: 'ignore', env: { PATH: '/usr/bin:/bin' }, timeout: PROBE_TIMEOUT_MS });
    const exitCode = await run.exited;
    if (exitCode === 0 && !run.signalCode) return { ok: true };
  } catch {
    // Said below, by the blocking run.
  }
  return probe(argv);
}

export interface HostProbes extends HostFacts {
  /** setpriv's path once switchUsers() said yes. */
  readonly setpriv: string | null;
  /** The sandbox layout once a bwrap probe ran. */
  readonly layout: SandboxLayout | null;
  /**
   * Runs, without blocking, the one sandbox probe `setting` will ask for (as the service uid
   * when this process can switch users, else as itself), so resolving afterwards waits on nothing.
   */
  warm(setting: 'auto' | 'uid' | 'bwrap' | 'none'): Promise<void>;
}

/**
 * The real host checks behind resolveIsolation, each run once and only when asked. `probeUid`
 * is the uid the sandbox probe runs as in uid mode (the first of the service range).
 */
export function hostProbes(options: { probeUid: number; servicesReachable: () => Check }): HostProbes {
  let setpriv: string | null = null;
  let layout: SandboxLayout | null = null;
  const once = <T>(compute: () => T): (() => T) & { seed(v: T): void } => {
    let value: { v: T } | undefined;
    return Object.assign(() => (value ??= { v: compute() }).v, { seed: (v: T) => void (value ??= { v }) });
  };
  const sandboxLayout = once((): { layout: SandboxLayout } | { missing: string } => {
    const found = discoverSandboxLayout();
    if ('layout' in found) layout = found.layout;
    return found;
  });
  const asSelf = (ran: Check): Check => (ran.ok ? ran : { ok: false, why: `a probe sandbox failed: ${ran.why}` });
  const asServiceUid = (ran: Check): Check => (ran.ok ? ran : { ok: false, why: `a probe sandbox as uid ${options.probeUid} failed: ${ran.why}` });
  const bwrapRuns = once((): Check => {
    const found = sandboxLayout();
    return 'missing' in found ? { ok: false, why: found.missing } : asSelf(probe(probeArgv(found.layout)));
  });
  const bwrapRunsAsServiceUid = once((): Check => {
    const found = sandboxLayout();
    if ('missing' in found) return { ok: false, why: found.missing };
    if (!setpriv) return { ok: false, why: 'setpriv (util-linux) is not installed' };
    return asServiceUid(probe([...setprivArgv(setpriv, options.probeUid), ...probeArgv(found.layout)]));
  });
  const probes = {
    get setpriv() {
      return setpriv;
    },
    get layout() {
      return layout;
    },
    async warm(setting: 'auto' | 'uid' | 'bwrap' | 'none') {
      if (setting !== 'auto' && setting !== 'bwrap') return;
      const found = sandboxLayout();
      if ('missing' in found) return; // the probes say so themselves, without a process
      if (probes.switchUsers().ok) {
        if (setpriv) bwrapRunsAsServiceUid.seed(asServiceUid(await probeAsync([...setprivArgv(setpriv, options.probeUid), ...probeArgv(found.layout)])));
      } else {
        bwrapRuns.seed(asSelf(await probeAsync(probeArgv(found.layout))));
      }
    },
    switchUsers: once((): Check => {
      if (process.platform !== 'linux') return { ok: false, why: `per-service uids need Linux (this is ${process.platform})` };
      const caps = effectiveCaps();
      const missing = NEEDED_CAPS.filter(([bit]) => caps === null || ((caps >> BigInt(bit)) & 1n) === 0n).map(([, name]) => name);
      if (missing.length > 0) return { ok: false, why: process.geteuid?.() === 0 ? `it runs as root without ${missing.join(', ')}` : `it runs as uid ${process.geteuid?.()} without ${missing.join(', ')}` };
      const found = findSystemProgram('setpriv');
      if (!found) return { ok: false, why: 'setpriv (util-linux) is not installed' };
      setpriv = found;
      return { ok: true };
    }),
    servicesReachable: once(options.servicesReachable),
    bwrapRuns,
    bwrapRunsAsServiceUid,
  };
  return probes;
}

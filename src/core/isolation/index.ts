import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { hostProbes } from './host';
import { IsolatedLauncher } from './launcher';
import { resolveIsolation, type Isolation, type IsolationSetting } from './resolve';
import { applyModes, controllerModes, reachableByOthers } from './tighten';
import { UidMap } from './uid-map';

export { IsolatedLauncher } from './launcher';
export { logIsolation } from './log';
export { isolationLabel, IsolationUnavailable, ISOLATION_SETTINGS, resolveIsolation, type Isolation, type IsolationSetting } from './resolve';
export { DEFAULT_UID_BASE, UID_COUNT } from './range';

/** A controller's (or an agent's) folders, as isolation sees them. */
export interface IsolationSite {
  setting: IsolationSetting;
  uidBase: number;
  /** The installation's folder (`--dir`). */
  dir: string;
  /** svc.toml or agent.toml, wherever it lives. */
  configFile: string;
  /** data/: the state dirs go to data/run, the uid map to data/isolation-uids.json. */
  dataDir: string;
  /** Owner-only folders besides data/ (config/, templates/, logs/, the state-sync copies, ...). */
  ownerOnly: readonly string[];
  /** Where service folders live: each root, and the subfolders that hold one folder per service (none: the root itself does). */
  serviceRoots: readonly { root: string; sub: readonly string[] }[];
  /** Leftovers of earlier versions to remove (the FIFO pool that lived under services/). */
  legacy?: readonly string[];
}

export interface StartedIsolation {
  isolation: Isolation;
  launcher: IsolatedLauncher;
  /** Paths whose mode was tightened at this start (uid mode), for the log. */
  tightened: string[];
}

function probesFor(site: IsolationSite) {
  const roots = site.serviceRoots.map((r) => r.root);
  // svc sets the modes of its own folder and of the service roots; anything above must already let others through.
  const own = [site.dir, ...roots, ...site.serviceRoots.flatMap((r) => r.sub.map((s) => join(r.root, s)))];
  return hostProbes({ probeUid: site.uidBase, servicesReachable: () => reachableByOthers(roots, own) });
}

/** What the host would give `site` now, without changing anything (the offline doctor); the reason when the setting cannot be met. */
export function previewIsolation(site: IsolationSite): Isolation | { error: string } {
  try {
    return resolveIsolation(site.setting, probesFor(site));
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/**
 * Once at start: resolves the mode (rejects with IsolationUnavailable, a ConfigError, when an
 * explicit setting cannot be met), tightens the installation's own files in uid mode, and
 * returns the launcher every service start goes through. The one sandbox probe (10-20 ms, a
 * process) runs while the caller goes on with its start.
 */
/** Where the supervisor keeps each service's state dir (`<data>/run/<service>/`): out of every server's reach. */
export function supervisorRunDir(dataDir: string): string {
  return join(dataDir, 'run');
}

export async function startIsolation(site: IsolationSite): Promise<StartedIsolation> {
  const probes = probesFor(site);
  await probes.warm(site.setting);
  const isolation = resolveIsolation(site.setting, probes);
  for (const path of site.legacy ?? []) rmSync(path, { recursive: true, force: true });
  let tightened: string[] = [];
  if (isolation.uid) {
    const rules = controllerModes({
      dir: site.dir,
      configFile: site.configFile,
      ownerOnly: [site.dataDir, ...site.ownerOnly],
      serviceRoots: site.serviceRoots,
    });
    tightened = applyModes(rules);
  }
  const forbidden = [site.dir, site.dataDir, dirname(site.configFile), ...site.ownerOnly, ...site.serviceRoots.map((r) => r.root)];
  const launcher = new IsolatedLauncher({
    isolation,
    runDir: supervisorRunDir(site.dataDir),
    uids: isolation.uid ? new UidMap(join(site.dataDir, 'isolation-uids.json'), site.uidBase, site.dir) : undefined,
    setpriv: probes.setpriv ?? undefined,
    sandbox: isolation.bwrap ? (probes.layout ?? undefined) : undefined,
    forbidden,
  });
  return { isolation, launcher, tightened };
}

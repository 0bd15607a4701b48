import type { Dedicated, DedicatedPatch } from '../../dedicated/model';
import type { Group, GroupPatch } from '../../groups/model';
import { sha256OfFile, swapJar, type JarSwap, type JarSwapOptions } from './jar-swap';
import type { ProxyUpdatePlan } from './plan';

/** Where a target's version is written: the stores, which write their TOML files atomically. */
export interface VersionStores {
  groups: { get(name: string): Group | undefined; update(name: string, body: GroupPatch): Group };
  dedicated: { get(name: string): Dedicated | undefined; update(name: string, body: DedicatedPatch): Dedicated };
}

/**
 * Makes one planned update: the new jar in place (jar-swap.ts), then the version written
 * through the target's store. Any failure after the swap puts the previous jar back, so the
 * jar and the version never disagree. Nothing is restarted: a group's next instances and a
 * dedicated proxy's next start run the new jar.
 *
 * A jar that already is the release (a template two groups share, updated for the first)
 * is not downloaded again. Returns whether the config's version changed.
 */
export async function applyUpdate(plan: ProxyUpdatePlan, stores: VersionStores, options: JarSwapOptions): Promise<{ versionWritten: boolean }> {
  const { target } = plan;
  const changed = () => {
    const now = target.kind === 'group' ? stores.groups.get(target.name) : stores.dedicated.get(target.name);
    return !now || now.software !== target.software || now.version !== target.version;
  };
  if (changed()) throw new Error(`${target.kind} ${target.name} changed since the check; run it again`);

  const already = (await sha256OfFile(target.jarPath, target.within)) === plan.file.checksum?.hex;
  const swap: JarSwap | null = already ? null : await swapJar(plan.file, target.jarPath, { ...options, within: target.within });
  try {
    // The download may have taken minutes: an operator's edit meanwhile wins over this update.
    if (changed()) throw new Error(`${target.kind} ${target.name} changed while ${plan.file.label} downloaded; its jar is left as it was`);
    const versionWritten = plan.version !== target.version;
    if (versionWritten) {
      if (target.kind === 'group') stores.groups.update(target.name, { version: plan.version });
      else stores.dedicated.update(target.name, { version: plan.version });
    }
    await swap?.commit();
    return { versionWritten };
  } catch (error) {
    if (swap) {
      await swap.undo().catch((undoError: unknown) => {
        throw new Error(`${(error as Error).message}; putting the previous jar back failed too: ${(undoError as Error).message}`);
      });
    }
    throw error;
  }
}

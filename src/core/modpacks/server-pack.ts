import type { SoftwareName } from '../software/kinds';

/**
 * A server pack: a zip that already is a server directory (a `mods/` folder or a server jar at
 * its top), with no index or manifest. Often zipped with its folder, so one top-level folder
 * holding everything is looked into. What it runs is read from the loader libraries its
 * installer left, when there are any:
 *
 *   libraries/net/minecraftforge/forge/{mc}-{forge}/      FORGE
 *   libraries/net/neoforged/neoforge/{neoforge}/          NEOFORGE (20.4.x is Minecraft 1.20.4)
 *   libraries/net/neoforged/forge/{mc}-{version}/         NEOFORGE (the 1.20.1 fork)
 *   libraries/net/fabricmc/fabric-loader/{loader}/        FABRIC, with
 *   libraries/net/fabricmc/intermediary/{mc}/             its Minecraft version
 */
export interface ServerPackLayout {
  /** Prefix of the server directory inside the zip: '' or `Folder/`. */
  prefix: string;
  software: SoftwareName | null;
  gameVersion: string | null;
  loaderVersion: string;
}

export function detectServerPack(names: readonly string[]): ServerPackLayout | null {
  const prefix = commonFolder(names);
  const inside = names.map((n) => n.slice(prefix.length));
  const isServer = inside.some((n) => n.startsWith('mods/') || (!n.includes('/') && n.toLowerCase().endsWith('.jar')));
  if (!isServer) return null;
  return { prefix, ...detectSoftware(inside) };
}

/** `Folder/` when every name sits in that one folder, else ''. */
function commonFolder(names: readonly string[]): string {
  let folder: string | null = null;
  for (const name of names) {
    const slash = name.indexOf('/');
    if (slash < 0) return '';
    const first = name.slice(0, slash + 1);
    if (folder === null) folder = first;
    else if (folder !== first) return '';
  }
  return folder ?? '';
}

function detectSoftware(names: readonly string[]): Omit<ServerPackLayout, 'prefix'> {
  const folders = (root: string): string[] => {
    const out = new Set<string>();
    for (const name of names) {
      if (!name.startsWith(root)) continue;
      const rest = name.slice(root.length);
      const slash = rest.indexOf('/');
      if (slash > 0) out.add(rest.slice(0, slash));
    }
    return [...out].sort();
  };
  const neo = folders('libraries/net/neoforged/neoforge/').at(-1);
  if (neo) return { software: 'NEOFORGE', gameVersion: neoForgeGameVersion(neo), loaderVersion: neo };
  const neoFork = splitGameVersion(folders('libraries/net/neoforged/forge/').at(-1));
  if (neoFork) return { software: 'NEOFORGE', ...neoFork };
  const forge = splitGameVersion(folders('libraries/net/minecraftforge/forge/').at(-1));
  if (forge) return { software: 'FORGE', ...forge };
  const fabric = folders('libraries/net/fabricmc/fabric-loader/').at(-1);
  if (fabric) return { software: 'FABRIC', gameVersion: folders('libraries/net/fabricmc/intermediary/').at(-1) ?? null, loaderVersion: fabric };
  return { software: null, gameVersion: null, loaderVersion: '' };
}

/** `1.20.1-47.2.0` → Minecraft 1.20.1, loader 47.2.0. */
function splitGameVersion(folder: string | undefined): { gameVersion: string; loaderVersion: string } | null {
  if (!folder) return null;
  const dash = folder.indexOf('-');
  if (dash < 0) return null;
  return { gameVersion: folder.slice(0, dash), loaderVersion: folder.slice(dash + 1) };
}

/** NeoForge numbers its builds after Minecraft: 20.4.x is 1.20.4, 21.0.x is 1.21. */
function neoForgeGameVersion(version: string): string | null {
  const match = /^(\d+)\.(\d+)\./.exec(version);
  if (!match) return null;
  return match[2] === '0' ? `1.${match[1]}` : `1.${match[1]}.${match[2]}`;
}

import { ApiError } from '../../errors';
import type { SoftwareName } from '../software/kinds';
import type { HangarPlatform } from '../software/upstream/hangar';

/**
 * A plugin platform as the API names it (`platform=paper`), and what it means in each
 * repository: Modrinth loader categories a plugin may carry and still run there (a Bukkit
 * plugin runs on Paper; Folia takes only plugins that say they support it), and Hangar's
 * platform (PAPER, WATERFALL, VELOCITY: Hangar has no separate Folia or Purpur platform).
 */
export interface PluginPlatform {
  name: string;
  modrinthLoaders: readonly string[];
  hangar: HangarPlatform;
}

const PLATFORMS: Record<string, Omit<PluginPlatform, 'name'>> = {
  paper: { modrinthLoaders: ['paper', 'spigot', 'bukkit'], hangar: 'PAPER' },
  purpur: { modrinthLoaders: ['purpur', 'paper', 'spigot', 'bukkit'], hangar: 'PAPER' },
  pufferfish: { modrinthLoaders: ['paper', 'spigot', 'bukkit'], hangar: 'PAPER' },
  leaf: { modrinthLoaders: ['paper', 'spigot', 'bukkit'], hangar: 'PAPER' },
  folia: { modrinthLoaders: ['folia'], hangar: 'PAPER' },
  spigot: { modrinthLoaders: ['spigot', 'bukkit'], hangar: 'PAPER' },
  bukkit: { modrinthLoaders: ['bukkit'], hangar: 'PAPER' },
  velocity: { modrinthLoaders: ['velocity'], hangar: 'VELOCITY' },
  waterfall: { modrinthLoaders: ['waterfall', 'bungeecord'], hangar: 'WATERFALL' },
  bungeecord: { modrinthLoaders: ['bungeecord'], hangar: 'WATERFALL' },
};

export const PLUGIN_PLATFORM_NAMES = Object.keys(PLATFORMS);

/** The named platform (any case); VALIDATION_FAILED naming the known ones otherwise. */
export function pluginPlatform(name: string): PluginPlatform {
  const key = name.trim().toLowerCase();
  const found = PLATFORMS[key];
  if (!found) throw new ApiError('VALIDATION_FAILED', `unknown plugin platform "${name}"; known: ${PLUGIN_PLATFORM_NAMES.join(', ')}`);
  return { name: key, ...found };
}

/** The platform a group's software runs plugins for; null for modded kinds, which take mods, not plugins. */
export function platformOfSoftware(software: SoftwareName): string | null {
  switch (software) {
    case 'VELOCITY':
      return 'velocity';
    case 'PURPUR':
      return 'purpur';
    case 'FOLIA':
      return 'folia';
    case 'FABRIC':
    case 'FORGE':
    case 'NEOFORGE':
      return null;
    default:
      return 'paper';
  }
}

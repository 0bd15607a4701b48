import { ApiError } from '../../errors';
import type { SoftwareName } from '../software/kinds';

/** The server software a pack runs on, as a group or dedicated service names it. */
export interface LoaderFacts {
  software: Extract<SoftwareName, 'FABRIC' | 'FORGE' | 'NEOFORGE'>;
  loaderVersion: string;
}

const UNSUPPORTED = 'svc runs FABRIC, FORGE and NEOFORGE modpacks';

/**
 * The loader of a `.mrpack` from its `dependencies` (keys `fabric-loader`, `forge`,
 * `neoforge`, `quilt-loader`, besides `minecraft`).
 */
export function loaderOfMrpack(dependencies: Record<string, string>): LoaderFacts {
  const found: LoaderFacts[] = [];
  if (dependencies['fabric-loader']) found.push({ software: 'FABRIC', loaderVersion: dependencies['fabric-loader'] });
  if (dependencies.forge) found.push({ software: 'FORGE', loaderVersion: dependencies.forge });
  if (dependencies.neoforge) found.push({ software: 'NEOFORGE', loaderVersion: dependencies.neoforge });
  if (found.length === 1) return found[0]!;
  if (dependencies['quilt-loader']) throw new ApiError('MODPACK_INVALID', `the pack runs on the Quilt loader; ${UNSUPPORTED}`);
  if (found.length === 0) throw new ApiError('MODPACK_INVALID', `modrinth.index.json names no mod loader in "dependencies" (fabric-loader, forge or neoforge); ${UNSUPPORTED}`);
  throw new ApiError('MODPACK_INVALID', `modrinth.index.json names more than one mod loader (${found.map((f) => f.software).join(', ')})`);
}

/** The loader of a CurseForge manifest: the primary entry of `minecraft.modLoaders`, an id like `forge-47.2.0`. */
export function loaderOfCurseForge(modLoaders: readonly { id: string; primary?: boolean }[]): LoaderFacts {
  const chosen = modLoaders.find((l) => l.primary) ?? modLoaders[0];
  if (!chosen) throw new ApiError('MODPACK_INVALID', 'manifest.json lists no mod loader in minecraft.modLoaders');
  const dash = chosen.id.indexOf('-');
  const kind = (dash < 0 ? chosen.id : chosen.id.slice(0, dash)).toLowerCase();
  const loaderVersion = dash < 0 ? '' : chosen.id.slice(dash + 1);
  if (kind === 'forge') return { software: 'FORGE', loaderVersion };
  if (kind === 'neoforge') return { software: 'NEOFORGE', loaderVersion };
  if (kind === 'fabric') return { software: 'FABRIC', loaderVersion };
  throw new ApiError('MODPACK_INVALID', `the pack runs on "${chosen.id}"; ${UNSUPPORTED}`);
}

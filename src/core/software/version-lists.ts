import { ApiError } from '../../errors';
import type { SoftwareName } from './kinds';
import type { LoaderVersionList, VersionList } from './upstream/model';
import type { Upstreams } from './upstream/upstreams';
import { isPreRelease, newestFirst, newestFirstOrder, splitVersions, versionList } from './upstream/version-order';

/** Kinds that take a loader version (`GET /api/software/{type}/modloader-versions`). */
export const LOADER_KINDS = ['FABRIC', 'FORGE', 'NEOFORGE'] as const satisfies readonly SoftwareName[];
type LoaderKind = (typeof LOADER_KINDS)[number];

/**
 * The versions a kind can run, from its upstream (see each client in upstream/ for the
 * endpoints). Throws UpstreamError when the upstream cannot be asked; the route turns that
 * into SERVICE_UNAVAILABLE.
 */
export async function listVersions(up: Upstreams, software: SoftwareName): Promise<VersionList> {
  switch (software) {
    case 'PAPER':
      return splitVersions(software, await up.papermc.versions('paper'));
    case 'FOLIA':
      return splitVersions(software, await up.papermc.versions('folia'));
    case 'VELOCITY':
      // Velocity publishes every release line as X.Y.Z-SNAPSHOT builds: that suffix is not a pre-release.
      return splitVersions(software, await up.papermc.versions('velocity'), (v) => isPreRelease(v.replace(/-SNAPSHOT$/i, '')));
    case 'PURPUR':
      return splitVersions(software, await up.purpur.versions());
    case 'PUFFERFISH':
      return splitVersions(software, await up.pufferfish.versions());
    case 'LEAF':
      return splitVersions(software, await up.leaf.versions());
    case 'FABRIC': {
      // Fabric's own order is chronological across releases and snapshots (24w14a has no number to sort by).
      const games = await up.fabric.gameVersions();
      const stable = games.filter((g) => g.stable).map((g) => g.version);
      const snapshots = games.filter((g) => !g.stable).map((g) => g.version);
      return { software, stable, snapshots, latest: stable[0] ?? snapshots[0] ?? null };
    }
    case 'FORGE':
      return splitVersions(software, (await up.forge.builds()).map((b) => b.mcVersion));
    case 'NEOFORGE':
      return splitVersions(software, (await up.neoforge.builds()).map((b) => b.mcVersion));
    case 'CUSTOM':
      // Any jar the operator brings: svc knows no versions for it.
      return versionList(software, [], []);
  }
}

/** Loader versions of a modded kind for one game version; VALIDATION_FAILED for other kinds. */
export async function listLoaderVersions(up: Upstreams, software: SoftwareName, mcVersion: string): Promise<LoaderVersionList> {
  if (!isLoaderKind(software)) {
    throw new ApiError('VALIDATION_FAILED', `${software} has no mod loader: modloader versions exist for ${LOADER_KINDS.join(', ')}`);
  }
  switch (software) {
    case 'FABRIC': {
      const loaders = await up.fabric.loaders(mcVersion);
      const versions = loaders.map((l) => l.version);
      return { ...loaderSplit(versions, isPreRelease), software, mcVersion, versions, latest: versions[0] ?? null, recommended: loaders.find((l) => l.stable)?.version ?? null };
    }
    case 'FORGE': {
      const [builds, promos] = await Promise.all([up.forge.builds(), up.forge.promotions()]);
      const versions = newestFirst(builds.filter((b) => b.mcVersion === mcVersion).map((b) => b.forgeVersion));
      return {
        ...loaderSplit(versions, isPreRelease),
        software,
        mcVersion,
        versions,
        latest: promos[`${mcVersion}-latest`] ?? versions[0] ?? null,
        recommended: promos[`${mcVersion}-recommended`] ?? null,
      };
    }
    case 'NEOFORGE': {
      const builds = (await up.neoforge.builds()).filter((b) => b.mcVersion === mcVersion).sort((a, b) => newestFirstOrder(a.neoforgeVersion, b.neoforgeVersion));
      const versions = builds.map((b) => b.neoforgeVersion);
      const betas = new Set(builds.filter((b) => b.beta).map((b) => b.neoforgeVersion));
      return { ...loaderSplit(versions, (v) => betas.has(v) || isPreRelease(v)), software, mcVersion, versions, latest: versions[0] ?? null, recommended: builds.find((b) => !b.beta)?.neoforgeVersion ?? null };
    }
  }
}

/**
 * The dashboard offers `stable` in its loader select (and falls back to free text when it is
 * empty), so every build not marked as a pre-release is listed there. Fabric's own `stable`
 * flag marks only its newest stable loader, so it cannot be the split; it picks `recommended`.
 */
function loaderSplit(versions: readonly string[], preRelease: (version: string) => boolean): { stable: string[]; snapshots: string[] } {
  return { stable: versions.filter((v) => !preRelease(v)), snapshots: versions.filter((v) => preRelease(v)) };
}

function isLoaderKind(software: SoftwareName): software is LoaderKind {
  return (LOADER_KINDS as readonly string[]).includes(software);
}

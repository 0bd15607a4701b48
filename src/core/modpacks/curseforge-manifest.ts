import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { relPathProblem } from '../files/rel-path';
import { ApiError } from '../../errors';
import { loaderOfCurseForge, type LoaderFacts } from './loader';

/**
 * A CurseForge modpack zip: `manifest.json` at its root —
 *
 *   {minecraft: {version: "1.20.1", modLoaders: [{id: "forge-47.2.0", primary: true}]},
 *    manifestType: "minecraftModpack", manifestVersion: 1, name, version, author,
 *    files: [{projectID, fileID, required}], overrides: "overrides"}
 *
 * — plus the overrides folder it names. Files are CurseForge project/file ids, resolved
 * through the API (`/v1/mods/{projectID}/files/{fileID}`); `required: false` marks files the
 * pack ships disabled, and they are left out.
 */

export const CURSEFORGE_MANIFEST = 'manifest.json';

const ManifestSchema = Type.Object({
  minecraft: Type.Object({
    version: Type.String(),
    modLoaders: Type.Array(Type.Object({ id: Type.String(), primary: Type.Optional(Type.Boolean()) })),
  }),
  manifestType: Type.Optional(Type.String()),
  manifestVersion: Type.Optional(Type.Integer()),
  name: Type.Optional(Type.String()),
  version: Type.Optional(Type.String()),
  files: Type.Array(Type.Object({ projectID: Type.Integer({ minimum: 1 }), fileID: Type.Integer({ minimum: 1 }), required: Type.Optional(Type.Boolean()) })),
  overrides: Type.Optional(Type.String()),
});

export interface CurseForgePlan {
  name: string;
  version: string;
  gameVersion: string;
  loader: LoaderFacts;
  /** The files to resolve and download (required ones only). */
  files: { projectID: number; fileID: number }[];
  /** How many were left out as not required. */
  optional: number;
  /** The overrides folder, as a prefix (`overrides/`). */
  overrides: string;
}

/** Checks a manifest read from a pack; MODPACK_INVALID naming the first problem. */
export function planCurseForge(raw: unknown): CurseForgePlan {
  if (!Value.Check(ManifestSchema, raw)) {
    const first = Value.Errors(ManifestSchema, raw).First();
    throw new ApiError('MODPACK_INVALID', `${CURSEFORGE_MANIFEST} is not a CurseForge modpack manifest${first ? `: ${first.path || '/'} ${first.message}` : ''}`);
  }
  const manifest = raw;
  if (manifest.manifestType !== undefined && manifest.manifestType !== 'minecraftModpack') {
    throw new ApiError('MODPACK_INVALID', `${CURSEFORGE_MANIFEST} has manifestType "${manifest.manifestType}", not minecraftModpack`);
  }
  const overrides = (manifest.overrides ?? 'overrides').replace(/\/+$/, '');
  const problem = relPathProblem(overrides);
  if (problem) throw new ApiError('MODPACK_INVALID', `${CURSEFORGE_MANIFEST} names the overrides folder ${JSON.stringify(overrides.slice(0, 200))}: ${problem}`);
  const required = manifest.files.filter((f) => f.required !== false);
  return {
    name: manifest.name ?? 'CurseForge modpack',
    version: manifest.version ?? '',
    gameVersion: manifest.minecraft.version,
    loader: loaderOfCurseForge(manifest.minecraft.modLoaders),
    files: required.map((f) => ({ projectID: f.projectID, fileID: f.fileID })),
    optional: manifest.files.length - required.length,
    overrides: `${overrides}/`,
  };
}

import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../../errors';

/**
 * The software a group can run, and everything the controller needs to know about each kind
 * that does not depend on a particular group: how to tell it is ready, how to stop it, which
 * global template it gets. Per-group values (version, memory, jarName...) live on the group.
 */

export const SOFTWARE_NAMES = [
  'VELOCITY',
  'PAPER',
  'PURPUR',
  'FOLIA',
  'PUFFERFISH',
  'LEAF',
  'FABRIC',
  'FORGE',
  'NEOFORGE',
  'CUSTOM',
] as const;

export type SoftwareName = (typeof SOFTWARE_NAMES)[number];

/** Exact, upper-case kind names (what the API stores and answers). */
export const SoftwareNameSchema = Type.Union(
  SOFTWARE_NAMES.map((name) => Type.Literal(name)),
  { description: 'server software kind' },
);

/** Global template folders laid under a service's own templates. */
export type TemplateOverlay = 'global' | 'global_proxy';

export interface SoftwareKind {
  readonly name: SoftwareName;
  readonly isProxy: boolean;
  /** The group must name a loader version (Fabric loader, Forge/NeoForge build). */
  readonly needsModloaderVersion: boolean;
  /** The group must name the jar (`jarName`): there is no default. */
  readonly needsCustomJar: boolean;
  readonly isModded: boolean;
  /** Regex source matched against console lines; the first match marks the service ready. */
  readonly readyPattern: string;
  /** How long a start may take before the service counts as failed. */
  readonly readyTimeoutMs: number;
  readonly templateOverlay: TemplateOverlay | null;
  /** Written to stdin (plus a newline) for a graceful stop. */
  readonly stopCommand: string;
  /** Jar the command runs when the group sets no `jarName`; null when there is none (CUSTOM). */
  readonly defaultJar: string | null;
}

// Vanilla-derived servers and Velocity both print `Done (1.23s)!` when ready.
const DONE = 'Done \\(';
// Forge/NeoForge sometimes log the help hint without a matching `Done (` line.
const MODDED_DONE = 'Done \\(|For help, type';
const PLAIN_TIMEOUT_MS = 180_000;
const MODDED_TIMEOUT_MS = 240_000;

function plain(name: SoftwareName): SoftwareKind {
  return {
    name,
    isProxy: false,
    needsModloaderVersion: false,
    needsCustomJar: false,
    isModded: false,
    readyPattern: DONE,
    readyTimeoutMs: PLAIN_TIMEOUT_MS,
    templateOverlay: 'global',
    stopCommand: 'stop',
    defaultJar: 'server.jar',
  };
}

function modded(name: SoftwareName, readyPattern: string): SoftwareKind {
  return {
    ...plain(name),
    needsModloaderVersion: true,
    isModded: true,
    readyPattern,
    readyTimeoutMs: MODDED_TIMEOUT_MS,
    templateOverlay: null,
  };
}

export const SOFTWARE: { readonly [N in SoftwareName]: SoftwareKind } = {
  VELOCITY: { ...plain('VELOCITY'), isProxy: true, templateOverlay: 'global_proxy', stopCommand: 'end' },
  PAPER: plain('PAPER'),
  PURPUR: plain('PURPUR'),
  FOLIA: plain('FOLIA'),
  PUFFERFISH: plain('PUFFERFISH'),
  LEAF: plain('LEAF'),
  FABRIC: modded('FABRIC', DONE),
  FORGE: modded('FORGE', MODDED_DONE),
  NEOFORGE: modded('NEOFORGE', MODDED_DONE),
  CUSTOM: { ...plain('CUSTOM'), needsCustomJar: true, templateOverlay: null, defaultJar: null },
};

/** Case-insensitive lookup (`paper` finds PAPER); undefined for anything else. */
export function findSoftware(name: string): SoftwareKind | undefined {
  const upper = name.trim().toUpperCase();
  return (SOFTWARE_NAMES as readonly string[]).includes(upper) ? SOFTWARE[upper as SoftwareName] : undefined;
}

/** Like `findSoftware`, but an unknown name is the API error SOFTWARE_UNKNOWN. */
export function requireSoftware(name: string): SoftwareKind {
  const kind = findSoftware(name);
  if (kind) return kind;
  throw new ApiError('SOFTWARE_UNKNOWN', `unknown software "${name}"; known: ${SOFTWARE_NAMES.join(', ')}`);
}

export const SoftwareListEntrySchema = Type.Object({
  name: SoftwareNameSchema,
  needsModloaderVersion: Type.Boolean(),
  needsCustomJar: Type.Boolean(),
  isProxy: Type.Boolean(),
});
export type SoftwareListEntry = Static<typeof SoftwareListEntrySchema>;

/** The body of `GET /api/software`, in the order of SOFTWARE_NAMES. */
export function softwareList(): SoftwareListEntry[] {
  return SOFTWARE_NAMES.map((name) => {
    const kind = SOFTWARE[name];
    return {
      name,
      needsModloaderVersion: kind.needsModloaderVersion,
      needsCustomJar: kind.needsCustomJar,
      isProxy: kind.isProxy,
    };
  });
}

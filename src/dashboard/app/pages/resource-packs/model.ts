/**
 * What the Resource packs page reads and sends: the resourcepacks module's records as its
 * routes answer them (src/modules/resourcepacks/model.ts), the permission nodes those routes
 * check, the limits their schemas set, and the words the page uses for places and sizes.
 */

/** P: a pack as GET /api/resourcepacks lists it. */
export interface Pack {
  id: number;
  packUuid: string;
  name: string;
  /** URL (hosted elsewhere) or LOCAL (uploaded to this controller). */
  source: string;
  /** Absolute for URL packs; /api/resourcepacks/files/<packUuid>.zip for LOCAL ones. */
  url: string;
  sha1Hash: string;
  promptMessage: string;
  force: boolean;
  /** Bytes; 0 for URL packs. */
  fileSize: number;
  uploadedAt: string;
  uploadedBy: string;
}

export interface PackList {
  packs: Pack[];
  total: number;
}

export type Scope = 'GLOBAL' | 'GROUP' | 'SERVICE';

/** An assignment as GET /api/resourcepacks/assignments answers it (a plain array, by priority then id). */
export interface Assignment {
  id: number;
  packId: number;
  scope: string;
  /** The group or service; '' for GLOBAL. */
  target: string;
  /** Lower is earlier in the stack, within its scope. */
  priority: number;
}

/** One pack of the stack GET /api/resourcepacks/for-group/{group}?service= answers, in apply order. */
export interface StackPack {
  packUuid: string;
  name: string;
  url: string;
  sha1Hash: string;
  promptMessage: string;
  force: boolean;
  priority: number;
}

export const BASE = '/api/resourcepacks';

/** The nodes the module's routes check (a dashboard session must hold them; an API token passes). */
export const NODE = {
  view: 'svc.dashboard.resourcepacks.view',
  manage: 'svc.dashboard.resourcepacks.manage',
  assign: 'svc.dashboard.resourcepacks.assign',
  groups: 'svc.dashboard.groups.view',
  services: 'svc.dashboard.services.view',
} as const;

/** Every query of the module's records: read again on its events. */
export const RP_KEY = ['resourcepacks'] as const;
export const PACKS_KEY = [...RP_KEY, 'packs'] as const;
export const ASSIGNMENTS_KEY = [...RP_KEY, 'assignments'] as const;
export const STACK_KEY = [...RP_KEY, 'stack'] as const;
/** The groups and services the places are picked from (read again on their own events). */
export const PLACES_KEY = ['resourcepacks-places'] as const;

/** The schemas' limits (LIMITS, CreatePackBodySchema, AssignBodySchema). */
export const LIMITS = { name: 64, url: 1024, prompt: 256, target: 128, priority: 1_000_000 } as const;

/** A place packs are assigned to: everywhere, one group, or one service. */
export interface Place {
  scope: Scope;
  /** '' for GLOBAL. */
  target: string;
}

/** Whether an assignment is at this place (targets compare without case, as the controller's index does). */
export function isAt(a: Assignment, place: Place): boolean {
  return a.scope === place.scope && (place.scope === 'GLOBAL' || a.target.toLowerCase() === place.target.toLowerCase());
}

/** The same place (targets without case). */
export function samePlace(a: Place, b: Place): boolean {
  return a.scope === b.scope && a.target.toLowerCase() === b.target.toLowerCase();
}

/** "everywhere", "group Lobby", "service Lobby-1". */
export function placeText(place: Place): string {
  if (place.scope === 'GLOBAL') return 'everywhere';
  return `${place.scope === 'GROUP' ? 'group' : 'service'} ${place.target}`;
}

/** The assignments at one place, in stack order (priority, then the older first). */
export function assignmentsAt(all: readonly Assignment[], place: Place): Assignment[] {
  return all.filter((a) => isAt(a, place)).sort((a, b) => a.priority - b.priority || a.id - b.id);
}

/** Every place with at least one assignment: everywhere first, then groups, then services, by name. */
export function placesInUse(all: readonly Assignment[]): { place: Place; count: number }[] {
  const found = new Map<string, { place: Place; count: number }>();
  for (const a of all) {
    const scope = (a.scope === 'GROUP' || a.scope === 'SERVICE' ? a.scope : 'GLOBAL') as Scope;
    const key = `${scope}\u0000${scope === 'GLOBAL' ? '' : a.target.toLowerCase()}`;
    const entry = found.get(key);
    if (entry) entry.count++;
    else found.set(key, { place: { scope, target: scope === 'GLOBAL' ? '' : a.target }, count: 1 });
  }
  const weight = { GLOBAL: 0, GROUP: 1, SERVICE: 2 };
  return [...found.values()].sort((x, y) => weight[x.place.scope] - weight[y.place.scope] || x.place.target.localeCompare(y.place.target));
}

const UNITS = ['KiB', 'MiB', 'GiB'];

/** Bytes in binary units: "512 B", "1.5 KiB", "50.0 MiB". */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${UNITS[unit]}`;
}

export function dateText(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** What the source means, in words. */
export function sourceText(pack: Pack): string {
  return pack.source === 'LOCAL' ? 'Uploaded to this controller' : 'Hosted elsewhere';
}

const SHA1_RE = /^[0-9a-fA-F]{40}$/;
// Control characters: the controller refuses them in a URL and in one-line texts.
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\x00-\x1f\x7f]/;

/** What is wrong with a pack's name as the routes check it, or null. */
export function nameProblem(name: string): string | null {
  const t = name.trim();
  if (t === '') return 'Give the pack a name: it is how the dashboard shows it.';
  if (t.length > LIMITS.name) return `A name has at most ${LIMITS.name} characters (this one has ${t.length}).`;
  if (/[\r\n]/.test(t)) return 'A name is one line.';
  return null;
}

/** What is wrong with the prompt players see, or null (it may be empty). */
export function promptProblem(prompt: string): string | null {
  if (prompt.length > LIMITS.prompt) return `The prompt has at most ${LIMITS.prompt} characters (this one has ${prompt.length}).`;
  if (/[\r\n]/.test(prompt)) return 'The prompt is one line.';
  return null;
}

/** What is wrong with a pack's address (an absolute http or https URL with a host), or null. */
export function urlProblem(raw: string): string | null {
  const text = raw.trim();
  if (text === '') return 'Give the address players’ clients download the pack from.';
  if (text.length > LIMITS.url) return `An address has at most ${LIMITS.url} characters (this one has ${text.length}).`;
  if (CONTROL_RE.test(text)) return 'The address must not hold line breaks, tabs or other control characters.';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'This is not a full address: it starts with http:// or https:// and names the host.';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.hostname === '') return `Clients download packs over http or https only, not ${url.protocol.replace(/:$/, '')}.`;
  return null;
}

/** What is wrong with a SHA-1 as typed (40 hexadecimal characters), or null. */
export function sha1Problem(raw: string): string | null {
  const text = raw.trim();
  if (text === '') return 'Give the file’s SHA-1 (40 hexadecimal characters), or work it out from a copy below.';
  if (!SHA1_RE.test(text)) return `A SHA-1 is exactly 40 hexadecimal characters (0–9, a–f); this is ${text.length} character${text.length === 1 ? '' : 's'}${/[^0-9a-fA-F]/.test(text) ? ' with others among them' : ''}.`;
  return null;
}

/** What is wrong with a service or group name typed as a target, or null. */
export function targetProblem(scope: Scope, raw: string): string | null {
  if (scope === 'GLOBAL') return null;
  const text = raw.trim();
  const what = scope === 'GROUP' ? 'group' : 'service';
  if (text === '') return `Name the ${what}.`;
  if (text.length > LIMITS.target) return `A ${what} name has at most ${LIMITS.target} characters.`;
  if (/[\r\n]/.test(text)) return `A ${what} name is one line.`;
  return null;
}

/** A pack's name from its file's: "Faithful 32x.zip" → "Faithful 32x". */
export function nameFromFile(fileName: string): string {
  return fileName.replace(/\.zip$/i, '').trim().slice(0, LIMITS.name);
}

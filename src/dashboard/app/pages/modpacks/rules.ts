/**
 * The fields of the modpack import dialog as the API takes them: the new group's
 * (groupTargetFields, src/core/modpacks/model.ts, and the upload's query in
 * src/http/routes/modpacks.ts), the new dedicated service's (dedicatedTargetFields), and what
 * an upload may say over the pack (its loader and versions). Pure code: the browser test holds
 * each field against those schemas.
 */
import type { Problems, RawValues, Specs } from '../../forms/fields';
import { bodyOf } from '../../forms/fields';
import { MEMORY_MESSAGE, MEMORY_PATTERN, NAME_MESSAGE, NAME_PATTERN, VERSION_MESSAGE, VERSION_PATTERN } from '../../forms/patterns';
import { GROUP_TYPES } from '../groups/rules';

export type PackTarget = 'group' | 'dedicated';

/** MODPACK_MEMORY, src/core/modpacks/install-group.ts: what an empty memory becomes. */
export const PACK_MEMORY = '4G';

export const GROUP_TARGET_SPECS = {
  groupName: { kind: 'text', label: 'Group name', required: true, pattern: NAME_PATTERN, patternMessage: NAME_MESSAGE, hint: 'The new group; the pack goes into its template, templates/<name>.' },
  type: { kind: 'choice', label: 'Type', options: GROUP_TYPES, hint: 'STATIC keeps each instance’s world; DYNAMIC starts fresh from the template.' },
  memory: { kind: 'text', label: 'Memory', pattern: MEMORY_PATTERN, patternMessage: MEMORY_MESSAGE, hint: `Heap per instance; empty = ${PACK_MEMORY}.` },
  minInstances: { kind: 'int', label: 'Min instances', min: 0, max: 1000, hint: '0: nothing starts until you start it.' },
  maxInstances: { kind: 'int', label: 'Max instances', min: 0, max: 1000 },
} as const satisfies Specs;

export const DEDICATED_TARGET_SPECS = {
  name: { kind: 'text', label: 'Service name', required: true, pattern: NAME_PATTERN, patternMessage: NAME_MESSAGE, hint: 'The new dedicated service and its folder.' },
  port: { kind: 'int', label: 'Port', required: true, min: 1, max: 65_535, hint: 'The fixed port it listens on.' },
  memory: { kind: 'text', label: 'Memory', pattern: MEMORY_PATTERN, patternMessage: MEMORY_MESSAGE, hint: `Heap; empty = ${PACK_MEMORY}.` },
  proxyEnabled: { kind: 'bool', label: 'Listed on the proxies', hint: "In the proxies' server list; off = players join it directly." },
} as const satisfies Specs;

/** ModdedSoftwareSchema, src/core/modpacks/model.ts; '' = the loader the pack names. */
export const PACK_LOADERS = ['', 'FABRIC', 'FORGE', 'NEOFORGE'] as const;

/** What an upload may say over the pack (runtimeFields; a dedicated upload takes no loader version). */
export const OVERRIDE_SPECS = {
  software: { kind: 'choice', label: 'Loader', options: PACK_LOADERS, labels: { '': 'The one the pack names' }, hint: 'A server pack that names no loader needs one here.' },
  version: { kind: 'text', label: 'Minecraft version', pattern: VERSION_PATTERN, patternMessage: VERSION_MESSAGE, maxLength: 32, placeholder: 'from the pack', hint: 'Empty: the one the pack names.' },
  modloaderVersion: { kind: 'text', label: 'Loader version', maxLength: 64, placeholder: 'from the pack', hint: 'Empty: the one the pack names (else the recommended one).' },
} as const satisfies Specs;

export const targetSpecs = (target: PackTarget): Specs => (target === 'group' ? GROUP_TARGET_SPECS : DEDICATED_TARGET_SPECS);
export const overrideKeys = (target: PackTarget): string[] => (target === 'group' ? ['software', 'version', 'modloaderVersion'] : ['software', 'version']);

export const TARGET_DEFAULTS: Record<PackTarget, RawValues> = {
  group: { groupName: '', type: 'STATIC', memory: PACK_MEMORY, minInstances: '0', maxInstances: '1' },
  dedicated: { name: '', port: '', memory: PACK_MEMORY, proxyEnabled: true },
};
export const OVERRIDE_DEFAULTS: RawValues = { software: '', version: '', modloaderVersion: '' };

/**
 * The rules across fields: min ≤ max (checkGroupTarget, src/core/modpacks/install-group.ts),
 * and a port another dedicated service has (DEDICATED_PORT_IN_USE).
 */
export function targetCrossCheck(target: PackTarget, values: RawValues, ports: readonly { name: string; port: number }[]): Problems {
  const out: Problems = {};
  if (target === 'group') {
    const min = Number(values.minInstances);
    const max = Number(values.maxInstances);
    if (Number.isInteger(min) && Number.isInteger(max) && min > max && String(values.maxInstances).trim() !== '') out.maxInstances = `Max instances must be at least Min instances (${min}).`;
  } else {
    const port = Number(values.port);
    const holder = ports.find((other) => other.port === port);
    if (holder) out.port = `Port ${port} is already the port of dedicated service ${holder.name}.`;
  }
  return out;
}

/** The target's fields as the API takes them; an empty memory is left out (the API's 4G). */
export function targetBody(target: PackTarget, values: RawValues): Record<string, unknown> {
  const specs = targetSpecs(target);
  const body = bodyOf(specs, values, Object.keys(specs));
  if (body.memory === '') delete body.memory;
  return body;
}

/** The overrides an upload sends: only those given. */
export function overrideBody(target: PackTarget, values: RawValues): Record<string, unknown> {
  const body = bodyOf(OVERRIDE_SPECS, values, overrideKeys(target));
  for (const key of Object.keys(body)) if (body[key] === '') delete body[key];
  return body;
}

/** A group or service name from a pack's name: its words joined, capitalised ("All the Mods 10" → AllTheMods10). */
export function nameFromPack(packName: string): string {
  const words = packName
    .replace(/\.(mrpack|zip)$/i, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
  return words
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('')
    .slice(0, 64);
}

/**
 * Every field of a group as the API takes it (GROUP_FIELDS, src/core/groups/model.ts: the
 * same keys, order, limits and defaults), the form's sections, and the rules across fields
 * (crossFieldProblem there). The browser test compares this table with GROUP_FIELDS field by
 * field, so a field added or a limit changed there fails it until it is mirrored here.
 */
import type { FormSection, Problems, RawValues, Specs } from '../../forms/fields';
import {
  customJarProblem,
  FILE_MESSAGE,
  FILE_PATTERN,
  MEMORY_MESSAGE,
  MEMORY_PATTERN,
  NAME_MESSAGE,
  NAME_PATTERN,
  SOFTWARE,
  TEMPLATE_MESSAGE,
  TEMPLATE_PATTERN,
  VERSION_MESSAGE,
  VERSION_PATTERN,
} from '../../forms/patterns';

export const GROUP_TYPES = ['DYNAMIC', 'STATIC', 'LOBBY'] as const;
export const PLACEMENT_FALLBACKS = ['wait', 'local', 'fail'] as const;

export const GROUP_SPECS = {
  name: { kind: 'text', label: 'Name', required: true, pattern: NAME_PATTERN, patternMessage: NAME_MESSAGE, hint: 'Services are named <Name>-1, <Name>-2, …; it cannot change later.' },
  type: { kind: 'choice', label: 'Type', options: GROUP_TYPES, hint: 'DYNAMIC: fresh work folder each start; STATIC: kept; LOBBY: dynamic, where players land.' },
  template: { kind: 'text', label: 'Template', pattern: TEMPLATE_PATTERN, patternMessage: TEMPLATE_MESSAGE, hint: 'Template folder; empty = the group name.' },
  templates: { kind: 'list', label: 'Templates', maxItems: 64, itemMaxLength: 64, itemPattern: TEMPLATE_PATTERN, patternMessage: TEMPLATE_MESSAGE, hint: 'Stacked templates, one a line, later ones over earlier; replaces Template when set.' },
  software: { kind: 'choice', label: 'Software', options: SOFTWARE },
  version: { kind: 'text', label: 'Version', required: true, pattern: VERSION_PATTERN, patternMessage: VERSION_MESSAGE, maxLength: 32, placeholder: '1.21.4' },
  modloaderVersion: { kind: 'text', label: 'Modloader version', maxLength: 64, hint: 'Fabric loader or Forge/NeoForge build; empty for other software.' },
  jarName: { kind: 'text', label: 'Jar name', pattern: FILE_PATTERN, patternMessage: FILE_MESSAGE, hint: 'Server jar file; empty = the software default.' },
  readyPattern: { kind: 'text', label: 'Ready pattern', maxLength: 256, regex: true, hint: 'Regular expression on console lines that marks the server ready; empty = the software default.' },
  javaPath: { kind: 'text', label: 'Java path', maxLength: 1024, hint: 'Java binary; empty = [java] of svc.toml. Admin only.' },
  startCommand: { kind: 'list', label: 'Start command', maxItems: 64, itemMaxLength: 4096, hint: 'Replaces the built command, one argument a line; {port} {memory} {name} {group} are filled in. Admin only.' },
  memory: { kind: 'text', label: 'Memory', pattern: MEMORY_PATTERN, patternMessage: MEMORY_MESSAGE, hint: 'Heap per instance, e.g. 1G or 512M; empty = 1G when creating, unchanged when editing.' },
  maxPlayers: { kind: 'int', label: 'Max players', min: 0, max: 100_000, hint: 'Players one instance admits.' },
  minInstances: { kind: 'int', label: 'Min instances', min: 0, max: 1000, hint: 'Kept running at all times.' },
  maxInstances: { kind: 'int', label: 'Max instances', min: 0, max: 1000, hint: 'Most instances at once.' },
  playersPerInstance: { kind: 'int', label: 'Players per instance', min: 1, max: 100_000, hint: 'Target players per instance for scaling.' },
  scaleThreshold: { kind: 'number', label: 'Scale threshold', min: 0, max: 1, step: 0.05, hint: 'Fill ratio (0 to 1) that starts another instance.' },
  idleTimeout: { kind: 'int', label: 'Idle timeout', min: 0, max: 604_800, hint: 'Seconds an empty instance may idle before scale-down; 0 = never.' },
  warmPoolSize: { kind: 'int', label: 'Warm pool size', min: 0, max: 100, hint: 'Prepared instances kept ready to start.' },
  stopOnEmpty: { kind: 'bool', label: 'Stop on empty', hint: 'Stop an instance when its last player leaves.' },
  restartOnCrash: { kind: 'bool', label: 'Restart on crash' },
  maxRestarts: { kind: 'int', label: 'Max restarts', min: 0, max: 1000, hint: 'Restarts after crashes before giving up.' },
  drainTimeout: { kind: 'int', label: 'Drain timeout', min: 0, max: 3600, hint: 'Seconds to wait for players to leave before stopping.' },
  deployOnStop: { kind: 'bool', label: 'Deploy on stop', hint: 'Copy changed files back into the template on stop.' },
  deployExcludes: { kind: 'list', label: 'Deploy excludes', maxItems: 64, itemMaxLength: 256, hint: 'Paths or globs never deployed back, one a line.' },
  jvmArgs: { kind: 'list', label: 'JVM args', maxItems: 64, itemMaxLength: 4096, hint: 'One a line; they replace the optimized defaults. Admin only.' },
  jvmOptimize: { kind: 'bool', label: 'Optimized JVM flags', hint: 'The well-known G1 flags when JVM args is empty.' },
  placementNode: { kind: 'text', label: 'Placement node', maxLength: 64, hint: 'Preferred cluster node; empty = any.' },
  placementFallback: { kind: 'choice', label: 'Placement fallback', options: PLACEMENT_FALLBACKS, hint: 'When that node is unavailable: wait, run here (local) or fail.' },
  syncEnabled: { kind: 'bool', label: 'State sync', hint: 'Keep a canonical copy of the work folder.' },
  syncExcludes: { kind: 'list', label: 'Sync excludes', maxItems: 64, itemMaxLength: 256, hint: 'Paths never synced, one a line.' },
} as const satisfies Specs;

export type GroupKey = keyof typeof GROUP_SPECS;
export const GROUP_KEYS = Object.keys(GROUP_SPECS) as GroupKey[];

/** A new group's form: the API's defaults (GROUP_FIELDS), software PAPER, version to be typed. */
export const GROUP_DEFAULTS: RawValues = {
  name: '',
  type: 'DYNAMIC',
  template: '',
  templates: '',
  software: 'PAPER',
  version: '',
  modloaderVersion: '',
  jarName: '',
  readyPattern: '',
  javaPath: '',
  startCommand: '',
  memory: '1G',
  maxPlayers: '50',
  minInstances: '1',
  maxInstances: '4',
  playersPerInstance: '40',
  scaleThreshold: '0.8',
  idleTimeout: '0',
  warmPoolSize: '0',
  stopOnEmpty: false,
  restartOnCrash: true,
  maxRestarts: '5',
  drainTimeout: '30',
  deployOnStop: false,
  deployExcludes: 'logs\ncrash-reports\ncache\nlibraries\n*.tmp',
  jvmArgs: '',
  jvmOptimize: true,
  placementNode: '',
  placementFallback: 'wait',
  syncEnabled: false,
  syncExcludes: '',
};

export const GROUP_SECTIONS: readonly FormSection[] = [
  { title: 'Group', fields: ['name', 'type', 'software', 'version', 'modloaderVersion', 'memory', 'maxPlayers'] },
  { title: 'Scaling', fields: ['minInstances', 'maxInstances', 'playersPerInstance', 'scaleThreshold', 'idleTimeout', 'warmPoolSize'] },
  { title: 'Lifecycle', fields: ['restartOnCrash', 'maxRestarts', 'stopOnEmpty', 'drainTimeout', 'deployOnStop', 'deployExcludes'] },
  { title: 'Launch: templates, jar, command, JVM', fields: ['template', 'templates', 'jarName', 'readyPattern', 'javaPath', 'startCommand', 'jvmArgs', 'jvmOptimize'], collapsed: true },
  { title: 'Placement and state sync', fields: ['placementNode', 'placementFallback', 'syncEnabled', 'syncExcludes'], collapsed: true },
];

/** crossFieldProblem (src/core/groups/model.ts) on the form's values; each message sits at the field to change. */
export function groupCrossCheck(values: RawValues): Problems {
  const out: Problems = {};
  const min = Number(values.minInstances);
  const max = Number(values.maxInstances);
  if (Number.isInteger(min) && Number.isInteger(max) && min > max && String(values.maxInstances).trim() !== '') {
    out.maxInstances = `Max instances must be at least Min instances (${min}).`;
  }
  const custom = customJarProblem(values.software, values.jarName, values.startCommand);
  if (custom) out.jarName = custom;
  return out;
}

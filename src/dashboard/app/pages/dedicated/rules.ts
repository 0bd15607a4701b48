/**
 * Every field of a dedicated service as the API takes it (DEDICATED_FIELDS,
 * src/core/dedicated/model.ts: the same keys, order, limits and defaults; the fields it shares
 * with groups use the group limits), the form's sections, and the rules across fields
 * (dedicatedProblem there, and the store's port check). The browser test compares this table
 * with DEDICATED_FIELDS field by field.
 */
import type { FormSection, Problems, RawValues, Specs } from '../../forms/fields';
import { customJarProblem, FILE_MESSAGE, FILE_PATTERN, MEMORY_MESSAGE, MEMORY_PATTERN, NAME_MESSAGE, NAME_PATTERN, SOFTWARE, VERSION_MESSAGE, VERSION_PATTERN } from '../../forms/patterns';

export const DEDICATED_SPECS = {
  name: { kind: 'text', label: 'Name', required: true, pattern: NAME_PATTERN, patternMessage: NAME_MESSAGE, hint: 'Also the service and its folder; it cannot change later.' },
  port: { kind: 'int', label: 'Port', required: true, min: 1, max: 65_535, hint: 'The fixed port it listens on.' },
  software: { kind: 'choice', label: 'Software', options: SOFTWARE },
  version: { kind: 'text', label: 'Version', required: true, pattern: VERSION_PATTERN, patternMessage: VERSION_MESSAGE, maxLength: 32, placeholder: '1.21.4' },
  jarName: { kind: 'text', label: 'Jar name', pattern: FILE_PATTERN, patternMessage: FILE_MESSAGE, hint: 'Server jar file; empty = the software default.' },
  readyPattern: { kind: 'text', label: 'Ready pattern', maxLength: 256, regex: true, hint: 'Regular expression on console lines that marks it ready; empty = the software default.' },
  javaPath: { kind: 'text', label: 'Java path', maxLength: 1024, hint: 'Java binary; empty = [java] of svc.toml. Admin only.' },
  startCommand: { kind: 'list', label: 'Start command', maxItems: 64, itemMaxLength: 4096, hint: 'Replaces the built command, one argument a line; {port} {memory} {name} are filled in. Admin only.' },
  proxyEnabled: { kind: 'bool', label: 'Listed on the proxies', hint: "In the proxies' server list; off = players join it directly." },
  memory: { kind: 'text', label: 'Memory', pattern: MEMORY_PATTERN, patternMessage: MEMORY_MESSAGE, hint: 'Heap, e.g. 2G or 512M; empty = 2G when creating, unchanged when editing.' },
  restartOnCrash: { kind: 'bool', label: 'Restart on crash' },
  maxRestarts: { kind: 'int', label: 'Max restarts', min: 0, max: 1000, hint: 'Restarts after crashes before giving up.' },
  jvmArgs: { kind: 'list', label: 'JVM args', maxItems: 64, itemMaxLength: 4096, hint: 'One a line; they replace the optimized defaults. Admin only.' },
  jvmOptimize: { kind: 'bool', label: 'Optimized JVM flags', hint: 'The well-known G1 flags when JVM args is empty.' },
} as const satisfies Specs;

export type DedicatedKey = keyof typeof DEDICATED_SPECS;
export const DEDICATED_KEYS = Object.keys(DEDICATED_SPECS) as DedicatedKey[];

/** A new service's form: the API's defaults; name, port and version to be typed (the port has no default). */
export const DEDICATED_DEFAULTS: RawValues = {
  name: '',
  port: '',
  software: 'PAPER',
  version: '',
  jarName: '',
  readyPattern: '',
  javaPath: '',
  startCommand: '',
  proxyEnabled: true,
  memory: '2G',
  restartOnCrash: true,
  maxRestarts: '5',
  jvmArgs: '',
  jvmOptimize: true,
};

export const DEDICATED_SECTIONS: readonly FormSection[] = [
  { title: 'Service', fields: ['name', 'port', 'software', 'version', 'memory', 'proxyEnabled'] },
  { title: 'Crashes', fields: ['restartOnCrash', 'maxRestarts'] },
  { title: 'Launch: jar, command, JVM', fields: ['jarName', 'readyPattern', 'javaPath', 'startCommand', 'jvmArgs', 'jvmOptimize'], collapsed: true },
];

/**
 * The rules across fields for a service named `self` (null: a new one) beside the `others`
 * the list holds: CUSTOM needs a jar or a command (dedicatedProblem), and a port another
 * dedicated service has is refused (DEDICATED_PORT_IN_USE, src/core/dedicated/store.ts).
 */
export function dedicatedCrossCheck(others: readonly { name: string; port: number }[], self: string | null) {
  return (values: RawValues): Problems => {
    const out: Problems = {};
    const port = Number(values.port);
    const holder = others.find((other) => other.name !== self && other.port === port);
    if (holder) out.port = `Port ${port} is already the port of dedicated service ${holder.name}.`;
    const custom = customJarProblem(values.software, values.jarName, values.startCommand);
    if (custom) out.jarName = custom;
    return out;
  };
}

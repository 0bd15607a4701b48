import { registerModuleEvents, type AuditRule, type EventSpec, type KeySpec } from './catalogue';

export { O, R } from './catalogue';

/** What a module declares of one of its events. */
export interface ModuleEventDeclaration {
  /** The data keys, each required or optional; `moduleId` is added (optional: the bus fills it). */
  readonly keys: KeySpec;
  /** What the audit log keeps (see catalogue.ts); a module's events default to `always`. */
  readonly audit?: AuditRule;
  /** The data key the audit log shows as the target, where the generic preference would pick the wrong one. */
  readonly auditTarget?: string;
  /** Who may hear it on the event stream (see EventSpec.audience). */
  readonly audience?: 'proxy';
}

/** A module's declared events as the bus reads them: `moduleId` among the keys, the owner named. */
export type ModuleEventTable<M extends string, T extends Readonly<Record<string, ModuleEventDeclaration>>> = {
  readonly [E in keyof T]: {
    readonly keys: T[E]['keys'] & { readonly moduleId: 'optional' };
    readonly audit: AuditRule;
    readonly module: M;
    readonly auditTarget?: string;
    readonly audience?: 'proxy';
  };
};

/**
 * Declares a module's events (the module-event envelope of the spec: on the wire `moduleId` is
 * folded into the data). Declaring is registering: the table is known to the bus and the audit
 * log from the moment the file is loaded, so a module's code (and a test that builds a part of
 * it without the registry) publishes with its keys and module id. The module object carries the
 * same table (`events`) for the registry; the module's events.ts also merges it into
 * `ModuleEventCatalogue` so its publishes are typed.
 */
export function moduleEvents<M extends string, const T extends Readonly<Record<string, ModuleEventDeclaration>>>(module: M, declared: T): ModuleEventTable<M, T> {
  const table: Record<string, EventSpec & { readonly module: M }> = {};
  for (const [type, declaration] of Object.entries(declared)) {
    table[type] = { ...declaration, keys: { ...declaration.keys, moduleId: 'optional' }, audit: declaration.audit ?? 'always', module };
  }
  registerModuleEvents(table);
  // The loop above builds exactly the mapped type, which TypeScript cannot follow through Object.entries.
  return table as unknown as ModuleEventTable<M, T>;
}

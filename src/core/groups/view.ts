import { Type, type Static, type TObject } from '@sinclair/typebox';
import { howToLift, type QuarantineRecord } from '../services/quarantine';
import { GROUP_FIELDS, GroupSchema, NESTED_FIELDS, NESTED_SECTIONS, type Group, type NestedFields, type NestedSection } from './model';

type NestedViews = { [T in NestedSection]: TObject<{ [K in NestedFields<T>]: (typeof GROUP_FIELDS)[K]['schema'] }> };

const nestedViews = Object.fromEntries(
  NESTED_SECTIONS.map((section) => [
    section,
    Type.Object(Object.fromEntries(NESTED_FIELDS[section].map((key) => [key, GROUP_FIELDS[key].schema])), {
      description: `the ${section} fields again, nested as the reference answers them (the dashboard reads these)`,
    }),
  ]),
) as NestedViews;

/** The crash-loop breaker's record of a group, as the API shows it (svc; null when not quarantined). */
export const GroupQuarantineSchema = Type.Object(
  {
    reason: Type.String({ description: 'why the breaker tripped, e.g. "crash loop: 10 crashes within 5 min"' }),
    since: Type.String({ description: 'ISO time the quarantine began' }),
    crashes: Type.Integer({ minimum: 0 }),
    lastService: Type.Union([Type.String(), Type.Null()], { description: 'the instance whose crash tripped it; its stdout log tells why' }),
    lastExitCode: Type.Union([Type.Integer(), Type.Null()]),
    diagnosis: Type.Union([Type.String(), Type.Null()]),
    lift: Type.String({ description: 'how an operator lifts it' }),
  },
  { description: 'the group is quarantined for a crash loop: no start of any kind (API, refill, scaling, warm pool, crash restart) until an operator lifts it' },
);
export type GroupQuarantine = Static<typeof GroupQuarantineSchema>;

/**
 * List and detail responses: every flat field, the nested objects the dashboard and the proxy
 * bridge read (`resources`, `scaling`, `lifecycle`, `static`), and what the controller knows
 * beside the definition.
 */
export const GroupViewSchema = Type.Composite([
  GroupSchema,
  Type.Object({
    ...nestedViews,
    static: Type.Boolean({ description: 'type is STATIC (work directories kept across starts)' }),
    activeInstances: Type.Integer({ minimum: 0 }),
    modIds: Type.Array(Type.String()),
    quarantine: Type.Union([GroupQuarantineSchema, Type.Null()]),
  }),
]);
export type GroupView = Static<typeof GroupViewSchema>;

/** The quarantine as the group view shows it. */
export function groupQuarantine(record: QuarantineRecord | undefined): GroupQuarantine | null {
  if (!record) return null;
  const { reason, since, crashes, lastService, lastExitCode, diagnosis } = record;
  return { reason, since, crashes, lastService, lastExitCode, diagnosis, lift: howToLift(record) };
}

/** A group as the API answers it. */
export function groupView(group: Group, known: { activeInstances: number; modIds: string[]; quarantine?: GroupQuarantine | null }): GroupView {
  const nested = Object.fromEntries(
    NESTED_SECTIONS.map((section) => [section, Object.fromEntries((NESTED_FIELDS[section] as readonly (keyof Group)[]).map((key) => [key, structuredClone(group[key])]))]),
  ) as Pick<GroupView, NestedSection>;
  return { ...group, ...nested, static: group.type === 'STATIC', activeInstances: known.activeInstances, modIds: known.modIds, quarantine: known.quarantine ?? null };
}

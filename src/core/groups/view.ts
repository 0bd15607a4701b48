import { Type, type Static, type TObject } from '@sinclair/typebox';
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
  }),
]);
export type GroupView = Static<typeof GroupViewSchema>;

/** A group as the API answers it. */
export function groupView(group: Group, known: { activeInstances: number; modIds: string[] }): GroupView {
  const nested = Object.fromEntries(
    NESTED_SECTIONS.map((section) => [section, Object.fromEntries((NESTED_FIELDS[section] as readonly (keyof Group)[]).map((key) => [key, structuredClone(group[key])]))]),
  ) as Pick<GroupView, NestedSection>;
  return { ...group, ...nested, static: group.type === 'STATIC', activeInstances: known.activeInstances, modIds: known.modIds };
}

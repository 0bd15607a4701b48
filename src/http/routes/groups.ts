import { join } from 'node:path';
import { t } from '../t';
import type { Kernel } from '../../kernel';
import { bodyValues, groupDefaults, GroupBodySchema, GroupPatchSchema, GroupSchema, templateStack, type Group } from '../../core/groups/model';
import { changedHostFields, requireAdminForHostFields } from '../../core/tenancy/host-fields';
import { holdsAdmin } from '../../core/auth';
import { groupQuarantine, groupView, GroupViewSchema, type GroupView } from '../../core/groups/view';
import { reloadConfiguration, REQUIRES_RESTART_IF_CHANGED } from '../../core/groups/reload';
import { groupChanges } from '../../core/groups/changes';
import { defineRoute, type AnyRoute } from '../route';

const NameParams = t.Object({ name: t.String({ pattern: GroupSchema.properties.name.pattern }) });
const Mutation = t.Object({ success: t.Literal(true), message: t.String(), group: GroupViewSchema });

const ReloadReportSchema = t.Object({
  success: t.Boolean(),
  groupsLoaded: t.Integer(),
  message: t.String(),
  sections: t.Array(
    t.Object({
      name: t.String(),
      scope: t.Union([t.Literal('LIVE'), t.Literal('NEXT_SERVICE_PREPARE'), t.Literal('REQUIRES_RESTART')]),
      applied: t.Boolean(),
      description: t.String(),
    }),
  ),
  requiresRestartIfChanged: t.Array(t.String(), { description: `always ${REQUIRES_RESTART_IF_CHANGED.join(', ')}` }),
  warnings: t.Array(t.String()),
});

export function groupRoutes(kernel: Kernel): AnyRoute[] {
  const { groups, services } = kernel;
  const changes = groupChanges(kernel);

  /** A group with what the controller knows beside its definition. */
  async function view(group: Group): Promise<GroupView> {
    // The mod scanner (zip reading, zlib) loads with the first group shown, not at start.
    const { scanModIds } = await import('../../core/groups/mod-ids');
    const modLists = await Promise.all(templateStack(group).map((template) => scanModIds(join(kernel.paths.templates, template, 'mods'))));
    return groupView(group, { activeInstances: services.activeInstances(group.name), modIds: [...new Set(modLists.flat())].sort(), quarantine: groupQuarantine(kernel.manager.quarantineOf(group.name)) });
  }

  return [
    defineRoute({
      method: 'GET',
      path: '/api/groups',
      auth: 'service',
      permission: 'svc.dashboard.groups.view',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'groups',
      summary: 'Every group with its active instances and mod ids',
      response: { 200: t.Object({ groups: t.Array(GroupViewSchema), total: t.Integer() }) },
      handler: async () => {
        const list = await Promise.all(groups.list().map(view));
        return { groups: list, total: list.length };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/groups/:name',
      auth: 'service',
      permission: 'svc.dashboard.groups.view',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'groups',
      summary: 'One group',
      params: NameParams,
      response: { 200: GroupViewSchema },
      handler: ({ params }) => view(groups.require(params.name)),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/groups',
      auth: 'service',
      permission: 'svc.dashboard.groups.edit',
      tag: 'groups',
      summary: 'Create a group; writes config/groups/<name>.toml',
      body: GroupBodySchema,
      response: { 201: Mutation },
      scopes: ['groups:write'],
      handler: async ({ body, set, actor, principal }) => {
        requireAdminForHostFields(holdsAdmin(principal), changedHostFields(groupDefaults(), bodyValues(body)), `group ${body.name}`);
        const group = changes.create(body, actor);
        set.status = 201;
        return { success: true as const, message: `group ${group.name} created`, group: await view(group) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/groups/:name',
      auth: 'service',
      permission: 'svc.dashboard.groups.edit',
      tag: 'groups',
      summary: 'Update a group: fields the body carries change, every other field keeps its value; the name cannot change',
      params: NameParams,
      body: GroupPatchSchema,
      response: { 200: Mutation },
      scopes: ['groups:write'],
      handler: async ({ params, body, actor, principal }) => {
        requireAdminForHostFields(holdsAdmin(principal), changedHostFields(groups.require(params.name), bodyValues(body)), `group ${params.name}`);
        const group = changes.update(params.name, body, actor);
        return { success: true as const, message: `group ${group.name} updated`, group: await view(group) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/groups/:name',
      auth: 'service',
      permission: 'svc.dashboard.groups.edit',
      tag: 'groups',
      summary: 'Delete a group definition; refused while instances run',
      scopes: ['groups:write'],
      params: NameParams,
      response: { 200: t.Object({ success: t.Literal(true), message: t.String() }) },
      handler: async ({ params, actor }) => {
        // Refused while instances run; its warm pool goes with it (GroupChanges.delete).
        await changes.delete(params.name, actor);
        return { success: true as const, message: `group ${params.name} deleted` };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/reload',
      auth: 'admin',
      permission: 'svc.dashboard.reload',
      tag: 'config',
      summary: 'Re-read every group file and svc.toml; reports what applied and what needs a restart',
      response: { 200: ReloadReportSchema },
      handler: ({ actor }) => reloadConfiguration(kernel, actor),
    }),
  ];
}

import { ErrorBodySchema, OkSchema } from '../../../http/schemas';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { CreateGroupBody, GroupListSchema, GroupParams, GroupPatchBody, GroupSchema, GroupUpdatedSchema } from '../model';
import type { PermsRuntime } from '../runtime';
import { groupView } from '../views';
import { ADMIN_GRANTS, authorOf, checkNodeField, MANAGE, ok, PREFIX, Refusals, TAG, VIEW, WithNotFound } from './common';

/** Groups themselves: list, read, create, edit (the dashboard's group editor), delete. */
export function groupRoutes(runtime: PermsRuntime): AnyRoute[] {
  const { state, groups } = runtime;
  return [
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/groups`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Every permission group, oldest first (G: name, default, prefix, suffix, priority, weight, permissions, scopedPermissions, parents, meta)',
      response: { 200: GroupListSchema, ...Refusals },
      handler: () => {
        // Creation order: the state's own order moves a group to the end whenever it changes.
        const list = state.groups().sort((a, b) => a.id - b.id).map((g) => groupView(state, g));
        return { groups: list, total: list.length };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/groups/:name`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'One permission group by name, any case (404 PERMISSION_GROUP_NOT_FOUND)',
      params: GroupParams,
      response: { 200: GroupSchema, ...WithNotFound },
      handler: ({ params }) => groupView(state, state.group(params.name)),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/groups`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Create a permission group; 201, 409 GROUP_ALREADY_EXISTS; publishes PERMISSION_GROUP_CREATED',
      body: CreateGroupBody,
      response: { 201: OkSchema, ...Refusals, 409: ErrorBodySchema },
      handler: ({ body, actor, principal, set }) => {
        const group = groups.create(body.name, body.default ?? false, authorOf(actor, principal));
        set.status = 201;
        return ok(`created permission group ${group.name}${group.isDefault ? ' (the default group)' : ''}`);
      },
    }),
    defineRoute({
      method: 'PUT',
      path: `${PREFIX}/groups/:name`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Change a group: any of default, prefix, suffix, priority, weight, permissions (the whole list; held nodes keep their scopes), parents (a cycle is refused), meta (the whole map); ' +
        'answers the group; publishes PERMISSION_GROUP_UPDATED (400 NO_FIELDS_TO_UPDATE for an empty body)' + ADMIN_GRANTS,
      params: GroupParams,
      body: GroupPatchBody,
      response: { 200: GroupUpdatedSchema, ...WithNotFound },
      handler: ({ params, body, actor, principal }) => {
        if (body.permissions) body.permissions.forEach((node, i) => checkNodeField(`permissions.${i}`, node));
        const group = groups.update(params.name, body, authorOf(actor, principal));
        const fields = Object.keys(body).filter((k) => body[k as keyof typeof body] !== undefined);
        return { ...ok(`updated permission group ${group.name}: ${fields.join(', ')}`), group: groupView(state, group) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/groups/:name`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Delete a group: players leave it, groups stop inheriting from it, tracks drop it; the default group is refused; publishes PERMISSION_GROUP_DELETED',
      params: GroupParams,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, actor, principal }) => {
        const name = state.group(params.name).name;
        groups.delete(name, authorOf(actor, principal));
        return ok(`deleted permission group ${name}`);
      },
    }),
  ];
}

import { OkSchema } from '../../../http/schemas';
import { defineRoute, type AnyRoute } from '../../../http/route';
import { AddPermissionBody, GroupMetaParams, GroupParams, MetaBody, MetaSchema, RemovePermissionBody } from '../model';
import type { PermsRuntime } from '../runtime';
import { ADMIN_GRANTS, authorOf, checkNodeField, MANAGE, ok, PREFIX, scopeWords, TAG, VIEW, WithNotFound } from './common';

/** A group's nodes (with server, world and expiry) and its meta. */
export function groupNodeRoutes(runtime: PermsRuntime): AnyRoute[] {
  const { state, groups } = runtime;
  return [
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/groups/:name/permissions`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Give a group a node, optionally only on a server or world, optionally until expiresAt (ISO-8601, in the future). Unscoped replaces the node’s scoped rows and scoped replaces ' +
        'the unscoped one; the same server and world again only sets the new expiry. Publishes PERMISSION_GROUP_UPDATED' + ADMIN_GRANTS,
      params: GroupParams,
      body: AddPermissionBody,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, body, actor, principal }) => {
        const node = checkNodeField('permission', body.permission);
        groups.addPermission(params.name, node, body, authorOf(actor, principal));
        return ok(`added ${node} to ${state.group(params.name).name}${scopeWords(body)}`);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/groups/:name/permissions`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Take a node from a group (JSON body): with server or world only that scoped row, without it every row of the node. A node the group does not hold is still 200, saying nothing was removed',
      params: GroupParams,
      body: RemovePermissionBody,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, body, actor, principal }) => {
        const node = checkNodeField('permission', body.permission);
        const removed = groups.removePermission(params.name, node, body, authorOf(actor, principal));
        const name = state.group(params.name).name;
        const where = scopeWords(body);
        return ok(removed ? `removed ${node} from ${name}${where}` : `${name} does not hold ${node}${where}; nothing was removed`);
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/groups/:name/meta`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'A group’s meta: {meta: {key: value}}',
      params: GroupParams,
      response: { 200: MetaSchema, ...WithNotFound },
      handler: ({ params }) => ({ meta: { ...state.group(params.name).meta } }),
    }),
    defineRoute({
      method: 'PUT',
      path: `${PREFIX}/groups/:name/meta`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Set one meta key of a group; publishes PERMISSION_GROUP_UPDATED',
      params: GroupParams,
      body: MetaBody,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, body, actor, principal }) => {
        groups.setMeta(params.name, body.key, body.value, authorOf(actor, principal));
        return ok(`set meta ${body.key} of ${state.group(params.name).name}`);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/groups/:name/meta/:key`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Remove one meta key of a group (absent: still 200, saying nothing was removed)',
      params: GroupMetaParams,
      response: { 200: OkSchema, ...WithNotFound },
      handler: ({ params, actor, principal }) => {
        const removed = groups.removeMeta(params.name, params.key, authorOf(actor, principal));
        const name = state.group(params.name).name;
        return ok(removed ? `removed meta ${params.key} from ${name}` : `${name} has no meta ${params.key}; nothing was removed`);
      },
    }),
  ];
}

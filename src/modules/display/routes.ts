import { defineRoute, type AnyRoute } from '../../http/route';
import { ErrorBodySchema } from '../../http/schemas';
import { DisplayListSchema, DisplayPatchSchema, DisplaySchema, NameParams, StateLabelSchema, StateParams } from './model';
import type { DisplayStore } from './store';

const VIEW = 'svc.dashboard.display.view';
const MANAGE = 'svc.dashboard.display.manage';
const TAG = 'display';
const Errors = { 400: ErrorBodySchema, 404: ErrorBodySchema };

/** `:name` is a group name in any case; the answers spell it as the group does. */
export function displayRoutes(store: DisplayStore): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/displays',
      auth: 'service',
      permission: VIEW,
      tenants: { proxy: 'any', backend: 'any' },
      tag: TAG,
      summary: 'The display (signs, NPC, state labels) of every non-proxy group, by name',
      response: { 200: DisplayListSchema },
      handler: () => {
        const displays = store.list();
        return { displays, total: displays.length };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/displays/:name',
      auth: 'service',
      permission: VIEW,
      tenants: { proxy: 'any', backend: 'any' },
      tag: TAG,
      summary: 'One group’s display (404 DISPLAY_CONFIG_NOT_FOUND for an unknown or proxy group)',
      params: NameParams,
      response: { 200: DisplaySchema, ...Errors },
      handler: ({ params }) => store.get(params.name),
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/displays/:name',
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Change a group’s display: any field at any depth; states and npc.statusItems merge key by key (null removes a key); publishes DISPLAY_UPDATED',
      params: NameParams,
      body: DisplayPatchSchema,
      response: { 200: DisplaySchema, ...Errors },
      // A request without a body is an empty patch: the display, unchanged.
      handler: ({ params, body, actor }) => store.update(params.name, body ?? {}, actor),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/displays/:name/reset',
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Rewrite a group’s display with the defaults; publishes DISPLAY_UPDATED (404 GROUP_NOT_FOUND, or DISPLAY_CONFIG_NOT_FOUND for a proxy group)',
      params: NameParams,
      response: { 200: DisplaySchema, ...Errors },
      handler: ({ params, actor }) => store.reset(params.name, actor),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/displays/:name/state/:state',
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'The label a group shows for a state: its entry in `states`, or the state itself',
      params: StateParams,
      response: { 200: StateLabelSchema, ...Errors },
      handler: ({ params }) => store.label(params.name, params.state),
    }),
  ];
}

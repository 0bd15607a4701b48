import { stat } from 'node:fs/promises';
import { t } from '../../http/t';
import { ApiError } from '../../errors';
import { defineRoute, type AnyRoute } from '../../http/route';
import { ErrorBodySchema, OkSchema } from '../../http/schemas';
import { requireWellFormedText } from '../../http/well-formed';
import { packFileResponse, packUuidOfFileName } from './download';
import {
  AssignBodySchema,
  AssignmentSchema,
  CreatePackBodySchema,
  IdParams,
  PackListSchema,
  PackSchema,
  StackSchema,
  StatusBodySchema,
  UploadQuerySchema,
  type Pack,
  type PackView,
} from './model';
import type { ResourcePacksRuntime } from './runtime';

const PREFIX = '/api/resourcepacks';
const TAG = 'resourcepacks';
const VIEW = 'svc.dashboard.resourcepacks.view';
const MANAGE = 'svc.dashboard.resourcepacks.manage';
const ASSIGN = 'svc.dashboard.resourcepacks.assign';
const Err = ErrorBodySchema;
const Refusals = { 400: Err, 401: Err, 403: Err } as const;

export const viewOf = (p: Pack): PackView => ({ ...p, uploadedAt: new Date(p.uploadedAt).toISOString() });

export function resourcePackRoutes(runtime: ResourcePacksRuntime): AnyRoute[] {
  const { service } = runtime;
  return [
    defineRoute({
      method: 'GET',
      path: PREFIX,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Every pack, newest first: {packs, total}',
      response: { 200: PackListSchema, ...Refusals },
      handler: () => {
        const packs = service.list().map(viewOf);
        return { packs, total: packs.length };
      },
    }),
    defineRoute({
      method: 'POST',
      path: PREFIX,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Register a pack hosted elsewhere: {name, url (absolute http/https), sha1Hash (exactly 40 hex), promptMessage, force}. Publishes RESOURCE_PACK_CREATED',
      body: CreatePackBodySchema,
      response: { 201: PackSchema, ...Refusals },
      handler: ({ body, actor, set }) => {
        requireWellFormedText(body);
        const pack = service.createUrlPack(body, actor);
        set.status = 201;
        return viewOf(pack);
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/upload`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary:
        'Upload a pack the controller hosts: the raw body is the zip (streamed to disk with its SHA-1; not a zip → 422 RESOURCE_PACK_UPLOAD_FAILED), name, force and prompt in the query. ' +
        'Over [resourcepacks] max_upload_bytes → 413 before or while reading. Publishes RESOURCE_PACK_CREATED',
      query: UploadQuerySchema,
      bodyLimit: runtime.maxUploadBytes,
      rawBody: { contentType: 'application/octet-stream' },
      response: { 201: PackSchema, ...Refusals, 409: Err, 413: Err, 422: Err, 503: Err, 507: Err },
      handler: async ({ query, request, actor, set }) => {
        requireWellFormedText(query);
        const pack = await service.upload(request, query, actor);
        set.status = 201;
        return viewOf(pack);
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/assignments`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'Every assignment, or one pack’s (packId), by priority: a plain array of {id, packId, scope, target, priority}',
      query: t.Object({ packId: t.Optional(t.Integer({ minimum: 1 })) }),
      response: { 200: t.Array(AssignmentSchema), ...Refusals },
      handler: ({ query }) => service.assignments(query.packId),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/assignments/:id`,
      auth: 'service',
      permission: ASSIGN,
      tag: TAG,
      summary: 'Remove one assignment (404 RESOURCE_PACK_ASSIGNMENT_NOT_FOUND). Publishes RESOURCE_PACK_UNASSIGNED',
      params: IdParams,
      response: { 200: OkSchema, ...Refusals, 404: Err },
      handler: ({ params, actor }) => {
        service.unassign(params.id, actor);
        return { success: true as const, message: 'Assignment removed' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/for-group/:group`,
      auth: 'service',
      machineOnly: true,
      tenants: { backend: 'any' },
      tag: TAG,
      summary:
        'The stack a backend of this group (and service) applies when a player joins, in order: GLOBAL, then GROUP, then SERVICE assignments, each by priority; LOCAL pack URLs absolute ([resourcepacks] public_base_url or the API address)',
      params: t.Object({ group: t.String({ minLength: 1, maxLength: 128 }) }),
      query: t.Object({ service: t.Optional(t.String({ maxLength: 128 })) }),
      response: { 200: StackSchema, ...Refusals },
      handler: ({ params, query }) => ({ packs: service.stack(params.group, query.service || undefined) }),
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/status`,
      auth: 'service',
      machineOnly: true,
      tenants: { backend: 'any' },
      tag: TAG,
      summary: 'A backend reports what a player’s client did with a pack ({playerUuid, packUuid, status}); publishes RESOURCE_PACK_STATUS',
      body: StatusBodySchema,
      response: { 200: OkSchema, ...Refusals },
      handler: ({ body, actor }) => {
        service.status(body.playerUuid, body.packUuid, body.status, actor);
        return { success: true as const, message: 'Status recorded' };
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/files/:name`,
      auth: 'public',
      tag: TAG,
      summary:
        'Download a LOCAL pack (`<packUuid>.zip`), no token: clients check it against its SHA-1. Streamed, with ETag (the SHA-1; If-None-Match → 304), single byte ranges (206) and Cache-Control public, max-age=3600',
      params: t.Object({ name: t.String({ maxLength: 256 }) }),
      response: { 200: t.Any({ description: 'the zip (application/zip)' }), 206: t.Any({ description: 'the requested byte range' }), 304: t.Any({ description: 'not modified' }), 400: Err, 404: Err, 416: Err },
      handler: async ({ params, request }) => {
        const packUuid = packUuidOfFileName(params.name);
        const pack = service.packByUuid(packUuid);
        if (!pack || pack.source !== 'LOCAL') throw new ApiError('RESOURCE_PACK_NOT_FOUND', `no hosted resource pack ${packUuid}.zip`);
        const path = service.fileOf(pack.packUuid);
        const info = await stat(path).catch(() => null);
        if (!info?.isFile()) throw new ApiError('RESOURCE_PACK_NOT_FOUND', `the file of resource pack "${pack.name}" is missing on the controller; upload it again`);
        return packFileResponse(request, { path, size: info.size, sha1: pack.sha1Hash, modifiedMs: info.mtimeMs });
      },
    }),
    defineRoute({
      method: 'GET',
      path: `${PREFIX}/:id`,
      auth: 'service',
      permission: VIEW,
      tag: TAG,
      summary: 'One pack (404 RESOURCE_PACK_NOT_FOUND)',
      params: IdParams,
      response: { 200: PackSchema, ...Refusals, 404: Err },
      handler: ({ params }) => viewOf(service.get(params.id)),
    }),
    defineRoute({
      method: 'DELETE',
      path: `${PREFIX}/:id`,
      auth: 'service',
      permission: MANAGE,
      tag: TAG,
      summary: 'Delete a pack, its assignments (each published as RESOURCE_PACK_UNASSIGNED) and a LOCAL pack’s file. Publishes RESOURCE_PACK_DELETED',
      params: IdParams,
      response: { 200: OkSchema, ...Refusals, 404: Err },
      handler: async ({ params, actor }) => {
        const pack = await service.delete(params.id, actor);
        return { success: true as const, message: `Pack '${pack.name}' deleted` };
      },
    }),
    defineRoute({
      method: 'POST',
      path: `${PREFIX}/:id/assignments`,
      auth: 'service',
      permission: ASSIGN,
      tag: TAG,
      summary:
        'Assign the pack: {scope: GLOBAL|GROUP|SERVICE, target (group or service; required unless GLOBAL), priority}. A pack is assigned once per scope and target (409 RESOURCE_PACK_ALREADY_EXISTS). Publishes RESOURCE_PACK_ASSIGNED',
      params: IdParams,
      body: AssignBodySchema,
      response: { 201: AssignmentSchema, ...Refusals, 404: Err, 409: Err },
      handler: ({ params, body, actor, set }) => {
        requireWellFormedText(body);
        const created = service.assign(params.id, body, actor);
        set.status = 201;
        return created;
      },
    }),
  ];
}

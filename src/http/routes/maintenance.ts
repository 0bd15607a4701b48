import { Type } from '@sinclair/typebox';
import { t } from '../t';
import type { Kernel } from '../../kernel';
import { GlobalMaintenanceSchema, GlobalTextsUpdateSchema, GroupMaintenanceSchema, ToggleSchema, WhitelistEntrySchema } from '../../core/maintenance/model';
import type { MaintenanceStatus } from '../../core/maintenance/maintenance';
import { TEXT_LIMITS } from '../../core/proxy/model';
import { ApiError } from '../../errors';
import { defineRoute, type AnyRoute } from '../route';
import { requireWellFormedText } from '../well-formed';

const StatusSchema = t.Object({ global: GlobalMaintenanceSchema, groups: t.Record(t.String(), GroupMaintenanceSchema) });
const Mutation = t.Object({ success: t.Literal(true), message: t.String(), global: GlobalMaintenanceSchema, groups: t.Record(t.String(), GroupMaintenanceSchema) });
const GroupParams = t.Object({ name: t.String({ minLength: 1, maxLength: 64 }) });
const WhitelistBody = Type.Object({ entry: WhitelistEntrySchema });

export function maintenanceRoutes(kernel: Kernel): AnyRoute[] {
  const { maintenance } = kernel;
  const answer = (message: string) => ({ success: true as const, message, ...(maintenance.status() satisfies MaintenanceStatus) });

  return [
    defineRoute({
      method: 'GET',
      path: '/api/maintenance',
      auth: 'service',
      permission: 'svc.dashboard.maintenance.toggle',
      tenants: { proxy: 'any' },
      tag: 'maintenance',
      summary: 'Global and per-group maintenance with texts, reasons and the whitelist',
      response: { 200: StatusSchema },
      handler: () => maintenance.status(),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/maintenance/global',
      auth: 'service',
      permission: 'svc.dashboard.maintenance.toggle',
      tenants: { proxy: 'any' },
      tag: 'maintenance',
      summary: 'Switch global maintenance; MAINTENANCE_ENABLED / MAINTENANCE_DISABLED when it changes',
      body: ToggleSchema,
      response: { 200: Mutation },
      handler: ({ body, actor }) => {
        requireWellFormedText(body);
        const changed = maintenance.setGlobal(body.enabled, body.reason ?? '', actor);
        return answer(`global maintenance ${body.enabled ? 'on' : 'off'}${changed ? '' : ' (it already was)'}`);
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/maintenance/global',
      auth: 'service',
      permission: 'svc.dashboard.maintenance.toggle',
      tenants: { proxy: 'any' },
      tag: 'maintenance',
      summary: 'Change the maintenance MOTD lines, protocol text or kick message',
      body: GlobalTextsUpdateSchema,
      response: { 200: Mutation },
      handler: ({ body }) => {
        if (Object.keys(body).length === 0) throw new ApiError('NO_FIELDS_TO_UPDATE', 'send at least one of motdLine1, motdLine2, protocolText, kickMessage');
        requireWellFormedText(body);
        maintenance.updateGlobalTexts(body);
        return answer('maintenance texts updated');
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/maintenance/groups/:name',
      auth: 'service',
      permission: 'svc.dashboard.maintenance.toggle',
      tenants: { proxy: 'any' },
      tag: 'maintenance',
      summary: "Switch a group's maintenance; MAINTENANCE_ENABLED / MAINTENANCE_DISABLED (scope = group) when it changes",
      params: GroupParams,
      body: ToggleSchema,
      response: { 200: Mutation },
      handler: ({ params, body, actor }) => {
        requireWellFormedText(body);
        const changed = maintenance.setGroup(params.name, body.enabled, body.reason ?? '', actor);
        return answer(`maintenance of group ${params.name} ${body.enabled ? 'on' : 'off'}${changed ? '' : ' (it already was)'}`);
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/maintenance/groups/:name',
      auth: 'service',
      permission: 'svc.dashboard.maintenance.toggle',
      tenants: { proxy: 'any' },
      tag: 'maintenance',
      summary: "Change a group's maintenance kick message",
      params: GroupParams,
      body: Type.Object({ kickMessage: Type.String({ maxLength: TEXT_LIMITS.block }) }),
      response: { 200: Mutation },
      handler: ({ params, body }) => {
        requireWellFormedText(body);
        maintenance.setGroupKickMessage(params.name, body.kickMessage);
        return answer(`maintenance kick message of group ${params.name} updated`);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/maintenance/whitelist',
      auth: 'service',
      permission: 'svc.dashboard.maintenance.toggle',
      tenants: { proxy: 'any' },
      tag: 'maintenance',
      summary: 'Let a player name (kept as typed, matched ignoring case) or uuid in during maintenance; adding it again in any case keeps the first spelling',
      body: WhitelistBody,
      response: { 200: Mutation },
      handler: ({ body }) => {
        const added = maintenance.whitelistAdd(body.entry);
        return answer(added ? `${body.entry} added to the maintenance whitelist` : `${body.entry} was already whitelisted`);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/maintenance/whitelist',
      auth: 'service',
      permission: 'svc.dashboard.maintenance.toggle',
      tenants: { proxy: 'any' },
      tag: 'maintenance',
      summary: 'Take a player name (in any case) or uuid off the maintenance whitelist (removing twice is fine)',
      body: WhitelistBody,
      response: { 200: Mutation },
      handler: ({ body }) => {
        const removed = maintenance.whitelistRemove(body.entry);
        return answer(removed ? `${body.entry} removed from the maintenance whitelist` : `${body.entry} was not whitelisted`);
      },
    }),
  ];
}

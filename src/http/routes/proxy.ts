import { Type } from '@sinclair/typebox';
import { t } from '../t';
import { ApiError } from '../../errors';
import type { Kernel } from '../../kernel';
import { ChatSchema, ChatUpdateSchema, MotdSchema, MotdUpdateSchema, PlayerTabFormatSchema, TablistSchema, TablistUpdateSchema } from '../../core/proxy/model';
import { normalizeUuid, PLAYER_NAME_PATTERN, UUID_PATTERN } from '../../core/players/uuid';
import type { ProxyPlayerEvent } from '../../core/players/roster';
import { defineRoute, type AnyRoute } from '../route';
import { requireWellFormedText } from '../well-formed';

const UuidParams = t.Object({ uuid: t.String({ pattern: UUID_PATTERN, description: 'dashed or 32-digit uuid' }) });
const Ok = t.Object({ success: t.Literal(true), message: t.String() });
const withOk = <T extends ReturnType<typeof t.Object>>(schema: T) => t.Composite([t.Object({ success: t.Literal(true), message: t.String() }), schema]);

/** The maintenance snapshot in the bridge's connect read: groups in maintenance map to their kick message. */
const ProxyMaintenanceSchema = t.Object({
  globalEnabled: t.Boolean(),
  reason: t.String(),
  motdLine1: t.String(),
  motdLine2: t.String(),
  protocolText: t.String(),
  kickMessage: t.String(),
  whitelist: t.Array(t.String()),
  groups: t.Record(t.String(), t.String(), { description: 'group in maintenance → its kick message' }),
});

const ServiceField = Type.String({ maxLength: 128, pattern: '^[^\\s]*$' });
const ProxyEventBody = Type.Object({
  type: Type.Union([Type.Literal('PLAYER_CONNECTED'), Type.Literal('PLAYER_DISCONNECTED'), Type.Literal('PLAYER_SERVER_SWITCH')]),
  player: Type.String({ pattern: PLAYER_NAME_PATTERN }),
  uuid: Type.String({ pattern: UUID_PATTERN }),
  service: Type.Optional(ServiceField),
  fromService: Type.Optional(ServiceField),
  toService: Type.Optional(ServiceField),
});

/** A PUT body that sets nothing is a mistake worth naming. */
function requireFields(body: object, what: string): void {
  if (Object.keys(body).length === 0) throw new ApiError('NO_FIELDS_TO_UPDATE', `send at least one ${what} field to change`);
  requireWellFormedText(body);
}

function uuidOf(raw: string): string {
  const uuid = normalizeUuid(raw);
  if (!uuid) throw new ApiError('VALIDATION_FAILED', `"${raw}" is not a uuid`);
  return uuid;
}

export function proxyRoutes(kernel: Kernel): AnyRoute[] {
  const { proxySettings: settings, maintenance, players } = kernel;
  return [
    defineRoute({
      method: 'GET',
      path: '/api/proxy/config',
      auth: 'service',
      // The bridge's read on connect; the dashboard reads the settings one by one below.
      machineOnly: true,
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'proxy',
      summary: "The proxy bridge's read on connect: tab list, MOTD, chat, per-player tab names and maintenance",
      response: {
        200: t.Object({
          tablist: TablistSchema,
          motd: MotdSchema,
          chat: ChatSchema,
          playerTabs: t.Record(t.String(), t.String(), { description: 'uuid → tab list name' }),
          maintenance: ProxyMaintenanceSchema,
          version: t.String(),
        }),
      },
      handler: () => {
        const { global, groups } = maintenance.status();
        const inMaintenance: Record<string, string> = {};
        for (const [name, state] of Object.entries(groups)) if (state.enabled) inMaintenance[name] = state.kickMessage;
        return {
          tablist: settings.tablist,
          motd: settings.motd,
          chat: settings.chat,
          playerTabs: settings.playerTabs(),
          maintenance: {
            globalEnabled: global.enabled,
            reason: global.reason,
            motdLine1: global.motdLine1,
            motdLine2: global.motdLine2,
            protocolText: global.protocolText,
            kickMessage: global.kickMessage,
            whitelist: global.whitelist,
            groups: inMaintenance,
          },
          version: kernel.version,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/proxy/tablist',
      auth: 'service',
      permission: 'svc.dashboard.proxy.view',
      tag: 'proxy',
      summary: 'Tab list header, footer, player format and refresh interval',
      response: { 200: TablistSchema },
      handler: () => settings.tablist,
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/proxy/tablist',
      auth: 'service',
      permission: 'svc.dashboard.proxy.manage',
      tag: 'proxy',
      summary: 'Change any of the tab list fields; TABLIST_UPDATED follows (bursts coalesced over 500 ms)',
      body: TablistUpdateSchema,
      response: { 200: withOk(TablistSchema) },
      handler: ({ body, actor }) => {
        requireFields(body, 'tab list');
        return { success: true as const, message: 'tab list updated', ...settings.updateTablist(body, actor) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/proxy/motd',
      auth: 'service',
      permission: 'svc.dashboard.proxy.view',
      tag: 'proxy',
      summary: 'Server-list MOTD lines, shown slots and player count offset',
      response: { 200: MotdSchema },
      handler: () => settings.motd,
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/proxy/motd',
      auth: 'service',
      permission: 'svc.dashboard.proxy.manage',
      tag: 'proxy',
      summary: 'Change any of the MOTD fields; MOTD_UPDATED follows (bursts coalesced over 500 ms)',
      body: MotdUpdateSchema,
      response: { 200: withOk(MotdSchema) },
      handler: ({ body, actor }) => {
        requireFields(body, 'MOTD');
        return { success: true as const, message: 'MOTD updated', ...settings.updateMotd(body, actor) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/proxy/chat',
      auth: 'service',
      permission: 'svc.dashboard.proxy.view',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'proxy',
      summary: 'Network chat format and whether it is on',
      response: { 200: ChatSchema },
      handler: () => settings.chat,
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/proxy/chat',
      auth: 'service',
      permission: 'svc.dashboard.proxy.manage',
      tag: 'proxy',
      summary: 'Change the chat format or switch it; CHAT_FORMAT_UPDATED follows (bursts coalesced over 500 ms)',
      body: ChatUpdateSchema,
      response: { 200: withOk(ChatSchema) },
      handler: ({ body, actor }) => {
        requireFields(body, 'chat');
        return { success: true as const, message: 'chat format updated', ...settings.updateChat(body, actor) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/proxy/tablist/players',
      auth: 'service',
      permission: 'svc.dashboard.proxy.view',
      tenants: { proxy: 'any', backend: 'any' },
      tag: 'proxy',
      summary: 'Every per-player tab list name, by uuid',
      response: { 200: t.Object({ overrides: t.Record(t.String(), t.String()), total: t.Integer() }) },
      handler: () => {
        const overrides = settings.playerTabs();
        return { overrides, total: Object.keys(overrides).length };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/api/proxy/tablist/players/:uuid',
      auth: 'service',
      permission: 'svc.dashboard.proxy.manage',
      tag: 'proxy',
      summary: "Set a player's tab list name; PLAYER_TAB_UPDATED follows",
      params: UuidParams,
      body: Type.Object({ format: PlayerTabFormatSchema }),
      response: { 200: withOk(t.Object({ uuid: t.String(), format: t.String() })) },
      handler: ({ params, body, actor }) => {
        requireWellFormedText(body);
        const uuid = uuidOf(params.uuid);
        settings.setPlayerTab(uuid, body.format, actor);
        return { success: true as const, message: `tab list name set for ${uuid}`, uuid, format: body.format };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/proxy/tablist/players/:uuid',
      auth: 'service',
      permission: 'svc.dashboard.proxy.manage',
      tag: 'proxy',
      summary: "Clear a player's tab list name; PLAYER_TAB_UPDATED (without format) follows",
      params: UuidParams,
      response: { 200: Ok },
      handler: ({ params, actor }) => {
        const uuid = uuidOf(params.uuid);
        const cleared = settings.clearPlayerTab(uuid, actor);
        return { success: true as const, message: cleared ? `tab list name cleared for ${uuid}` : `${uuid} had no tab list name` };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/proxy/events',
      auth: 'service',
      machineOnly: true,
      tenants: { proxy: 'any' },
      speaksForPlayers: true,
      tag: 'proxy',
      summary: 'The bridge reports a player connecting, leaving or switching server; the roster moves and the event is published',
      body: ProxyEventBody,
      response: { 200: Ok },
      handler: ({ body, actor, principal }) => {
        const uuid = uuidOf(body.uuid);
        // A proxy reporting with its own credential is the proxy carrying the player.
        const proxy = principal?.tenant?.role === 'proxy' ? principal.tenant.service : undefined;
        let event: ProxyPlayerEvent;
        if (body.type === 'PLAYER_SERVER_SWITCH') {
          const to = body.toService ?? body.service;
          if (to === undefined || to === '') throw new ApiError('VALIDATION_FAILED', 'a PLAYER_SERVER_SWITCH needs "toService" (the server the player moved to)');
          event = { type: body.type, player: body.player, uuid, from: body.fromService ?? '', to };
        } else {
          event = body.type === 'PLAYER_CONNECTED' ? { type: body.type, player: body.player, uuid, service: body.service ?? '', ...(proxy ? { proxy } : {}) } : { type: body.type, player: body.player, uuid, service: body.service ?? '' };
        }
        players.record(event, actor);
        return { success: true as const, message: `${body.type} recorded` };
      },
    }),
  ];
}

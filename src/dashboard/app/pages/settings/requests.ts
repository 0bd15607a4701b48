/** The routes the Settings page calls (config.ts, maintenance.ts, proxy.ts), with the fields it reads. */
import { api } from '../../api';

export interface ConfigView {
  networkName: string;
  consoleColored: boolean;
  consoleLogEvents: boolean;
  hasToken: boolean;
  jwtEnabled: boolean;
  configFile: string;
  /** Every svc.toml section; secrets replaced by has_<key> booleans. */
  sections: Record<string, Record<string, unknown>>;
}
export type ConfigPatch = Partial<Pick<ConfigView, 'networkName' | 'consoleColored' | 'consoleLogEvents'>>;

export interface GlobalMaintenance {
  enabled: boolean;
  reason: string;
  motdLine1: string;
  motdLine2: string;
  protocolText: string;
  kickMessage: string;
  whitelist: string[];
}
export interface GroupMaintenance {
  enabled: boolean;
  reason: string;
  kickMessage: string;
}
export interface MaintenanceStatus {
  global: GlobalMaintenance;
  /** Only groups whose maintenance was ever set; the others are off with the default text. */
  groups: Record<string, GroupMaintenance>;
}
interface MaintenanceMutation extends MaintenanceStatus {
  success: true;
  message: string;
}

export interface Motd {
  line1: string;
  line2: string;
  maxPlayers: number;
  playerCountOffset: number;
}
export interface Tablist {
  header: string;
  footer: string;
  playerFormat: string;
  updateInterval: number;
}
export interface Chat {
  format: string;
  enabled: boolean;
}

export const CONFIG_KEY = ['config'] as const;
export const MAINTENANCE_KEY = ['maintenance'] as const;
export const proxyKey = (part: 'motd' | 'tablist' | 'chat') => ['proxy', part] as const;

export const getConfig = () => api<ConfigView>('/api/config');
export const patchConfig = (body: ConfigPatch) => api<{ message: string; config: ConfigView }>('/api/config', { method: 'PATCH', json: body });

export const getMaintenance = () => api<MaintenanceStatus>('/api/maintenance');
export const setGlobalMaintenance = (enabled: boolean, reason: string) =>
  api<MaintenanceMutation>('/api/maintenance/global', { method: 'POST', json: { enabled, reason } });
export const putGlobalTexts = (body: Record<string, unknown>) => api<MaintenanceMutation>('/api/maintenance/global', { method: 'PUT', json: body });
const groupPath = (name: string) => `/api/maintenance/groups/${encodeURIComponent(name)}`;
export const setGroupMaintenance = (name: string, enabled: boolean, reason: string) =>
  api<MaintenanceMutation>(groupPath(name), { method: 'POST', json: { enabled, reason } });
export const putGroupKickMessage = (name: string, kickMessage: string) => api<MaintenanceMutation>(groupPath(name), { method: 'PUT', json: { kickMessage } });
export const whitelist = (method: 'POST' | 'DELETE', entry: string) => api<MaintenanceMutation>('/api/maintenance/whitelist', { method, json: { entry } });

/** GET and PUT of one proxy setting; the PUT answers the whole setting beside its message. */
export const getProxy = <T>(part: 'motd' | 'tablist' | 'chat') => api<T>(`/api/proxy/${part}`);
export const putProxy = <T>(part: 'motd' | 'tablist' | 'chat', body: Record<string, unknown>) =>
  api<T & { success: true; message: string }>(`/api/proxy/${part}`, { method: 'PUT', json: body });

/** The group names (the Groups page's query, shared by key). */
export const GROUPS_KEY = ['groups'] as const;
export const listGroups = () => api<{ groups: { name: string; software: string; version: string; template: string; templates: string[] }[]; total: number }>('/api/groups');

/** A mutation's answer without its success and message: the status the query holds. */
export function statusOf(answer: MaintenanceMutation): MaintenanceStatus {
  return { global: answer.global, groups: answer.groups };
}

/** The group routes (src/http/routes/groups.ts) as the page calls them, with the fields it reads. */
import { api } from '../../api';

export interface GroupQuarantine {
  reason: string;
  since: string;
  crashes: number;
  lastService: string | null;
  /** How an operator lifts it, in words. */
  lift: string;
}

/** GroupViewSchema (src/core/groups/view.ts): the flat fields the form edits, and what the list shows beside them. */
export interface GroupView extends Record<string, unknown> {
  name: string;
  type: string;
  software: string;
  version: string;
  memory: string;
  minInstances: number;
  maxInstances: number;
  static: boolean;
  activeInstances: number;
  quarantine: GroupQuarantine | null;
}

interface Mutation {
  success: true;
  message: string;
  group: GroupView;
}

export const GROUPS_KEY = ['groups'] as const;
const path = (name: string) => `/api/groups/${encodeURIComponent(name)}`;

export const listGroups = () => api<{ groups: GroupView[]; total: number }>('/api/groups');
export const getGroup = (name: string) => api<GroupView>(path(name));
export const createGroup = (body: Record<string, unknown>) => api<Mutation>('/api/groups', { method: 'POST', json: body });
/** A partial update: the fields the body carries change, the rest keep their values. */
export const updateGroup = (name: string, body: Record<string, unknown>) => api<Mutation>(path(name), { method: 'PUT', json: body });
/** 409 GROUP_HAS_RUNNING_INSTANCES while any of its services runs. */
export const deleteGroup = (name: string) => api<{ success: true; message: string }>(path(name), { method: 'DELETE' });

/** The dedicated routes (src/http/routes/dedicated.ts, admin) as the page calls them, with the fields it reads. */
import { api } from '../../api';

/** DedicatedViewSchema (src/core/dedicated/model.ts): the config the form edits, where it lives, how it runs. */
export interface DedicatedView extends Record<string, unknown> {
  name: string;
  port: number;
  software: string;
  version: string;
  memory: string;
  proxyEnabled: boolean;
  directory: string;
  /** The service's state while it has a record (CRASHED included); null when it is not running. */
  state: string | null;
  playerCount: number | null;
  /** "<h>h <m>m <s>s"; null when it is not running. */
  uptime: string | null;
}

interface WithService {
  success: true;
  message: string;
  service: DedicatedView;
}

/** ACTIVE_STATES, src/core/services/lifecycle.ts: a process is there or about to be (delete is refused, start too). */
export const ACTIVE_STATES: readonly string[] = ['PREPARING', 'PREPARED', 'STARTING', 'READY', 'DRAINING', 'STOPPING'];

export const DEDICATED_KEY = ['dedicated'] as const;
const path = (name: string) => `/api/dedicated/${encodeURIComponent(name)}`;

export const listDedicated = () => api<{ services: DedicatedView[]; total: number }>('/api/dedicated');
export const getDedicated = (name: string) => api<DedicatedView>(path(name));
export const createDedicated = (body: Record<string, unknown>) => api<WithService>('/api/dedicated', { method: 'POST', json: body });
/** A partial update; a running service picks it up at its next start (the answer's message says so). */
export const updateDedicated = (name: string, body: Record<string, unknown>) => api<WithService>(path(name), { method: 'PUT', json: body });
/** 409 DEDICATED_ALREADY_RUNNING while it is active; its folder is always kept. */
export const deleteDedicated = (name: string) => api<{ success: true; message: string }>(path(name), { method: 'DELETE' });
/** 409 when it runs or its port is held, 404 when its folder is gone. */
export const startDedicated = (name: string) => api<WithService>(`${path(name)}/start`, { method: 'POST' });
/** Graceful (drain, `stop`, kill after the timeout); a stopped service is a no-op. */
export const stopDedicated = (name: string) => api<WithService>(`${path(name)}/stop`, { method: 'POST' });

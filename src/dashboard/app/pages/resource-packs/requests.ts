/**
 * The resourcepacks routes (src/modules/resourcepacks/routes.ts) as the page calls them. The
 * upload sends the zip as the raw body, with name, force and prompt in the query, through
 * XMLHttpRequest: fetch reports no upload progress. Always to /api/resourcepacks/upload, the
 * one route a pack is uploaded to (the reference dashboard sent uploads through a proxy to the
 * modpack routes: never).
 */
import { api, ApiFailure, signOut, storedToken } from '../../api';
import { BASE, type Assignment, type Pack, type PackList, type Place, type StackPack } from './model';

export const listPacks = () => api<PackList>(BASE);
export const listAssignments = () => api<Assignment[]>(`${BASE}/assignments`);

export interface UrlPackBody {
  name: string;
  url: string;
  sha1Hash: string;
  promptMessage: string;
  force: boolean;
}

export const createUrlPack = (body: UrlPackBody) => api<Pack>(BASE, { method: 'POST', json: body });
export const deletePack = (id: number) => api<{ message: string }>(`${BASE}/${id}`, { method: 'DELETE' });

export const assign = (packId: number, place: Place, priority: number) =>
  api<Assignment>(`${BASE}/${packId}/assignments`, { method: 'POST', json: place.scope === 'GLOBAL' ? { scope: 'GLOBAL', priority } : { scope: place.scope, target: place.target, priority } });
export const unassign = (id: number) => api<{ message: string }>(`${BASE}/assignments/${id}`, { method: 'DELETE' });

/** What a backend of `group` (and `service`) applies on a player's join. Machine-only: an API token's sign-in. */
export function stackFor(group: string, service: string): Promise<{ packs: StackPack[] }> {
  const query = service.trim() === '' ? '' : `?${new URLSearchParams({ service: service.trim() })}`;
  return api<{ packs: StackPack[] }>(`${BASE}/for-group/${encodeURIComponent(group.trim())}${query}`);
}

/** The error body of an answer read by hand (the XHR), as api() reads it. */
function failureOf(status: number, statusText: string, text: string): ApiFailure {
  let body: { error?: unknown; message?: unknown } | undefined;
  try {
    body = text ? (JSON.parse(text) as typeof body) : undefined;
  } catch {
    body = undefined;
  }
  const code = typeof body?.error === 'string' ? body.error : `HTTP_${status}`;
  const message = typeof body?.message === 'string' ? body.message : statusText || `the controller answered ${status}`;
  if (code === 'AUTH_FAILED' || code === 'AUTH_SESSION_EXPIRED' || code === 'AUTH_SESSION_INVALID') {
    signOut(code === 'AUTH_SESSION_EXPIRED' ? 'Your session has expired: sign in again.' : 'You were signed out: sign in again.');
  }
  return new ApiFailure(status, code, message);
}

export interface UploadFields {
  name: string;
  force: boolean;
  prompt: string;
}

export interface Upload {
  /** The pack, once the controller has stored, hashed and checked it. */
  done: Promise<Pack>;
  /** Stops sending (rejects `done` with ABORTED). */
  abort: () => void;
}

/** Sends `file` as the pack's zip; `progress` hears the bytes sent so far. */
export function uploadPack(file: File, fields: UploadFields, progress: (sent: number) => void): Upload {
  const request = new XMLHttpRequest();
  const query = new URLSearchParams({ name: fields.name, force: String(fields.force) });
  if (fields.prompt !== '') query.set('prompt', fields.prompt);
  const done = new Promise<Pack>((resolve, reject) => {
    request.open('POST', `${BASE}/upload?${query}`);
    const token = storedToken();
    if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
    request.setRequestHeader('content-type', 'application/octet-stream');
    request.upload.onprogress = (event) => progress(event.loaded);
    request.upload.onload = () => progress(file.size);
    request.onload = () => {
      if (request.status === 201) {
        try {
          resolve(JSON.parse(request.responseText) as Pack);
        } catch {
          reject(new ApiFailure(request.status, 'HTTP_201', 'the controller’s answer could not be read'));
        }
      } else reject(failureOf(request.status, request.statusText, request.responseText));
    };
    request.onerror = () => reject(new ApiFailure(0, 'NETWORK', 'the connection to the controller broke off during the upload'));
    request.onabort = () => reject(new ApiFailure(0, 'ABORTED', 'the upload was stopped'));
    request.send(file);
  });
  return { done, abort: () => request.abort() };
}

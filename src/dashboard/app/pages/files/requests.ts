/**
 * The files API as the Files page calls it (spec, "Files"; src/http/routes/files.ts). JSON
 * calls go through api(); a file's own bytes (the editor's read, a download) and uploads need
 * the response itself, so they read a refusal here the way api() does.
 */
import { api, ApiFailure, signOut, storedToken } from '../../api';
import { binaryByName } from './binary-names';
import { apiUrl, baseName, type ScopeName } from './paths';

export interface FileEntry {
  name: string;
  /** Relative to the scope root. */
  path: string;
  isDirectory: boolean;
  /** Bytes; 0 for a directory. */
  size: number;
  lastModified: string;
}

export interface Listing {
  scope: ScopeName;
  path: string;
  entries: FileEntry[];
  total: number;
}

/** A JSON read of a text file: the API answers text (UTF-8) this way and no other file. */
interface FileContent {
  content: string;
  encoding: 'utf8' | 'base64';
  size: number;
  lastModified: string;
}

export type Opened = { kind: 'text'; content: string; size: number } | { kind: 'binary'; size: number | null };

/** Largest file the API reads as JSON (MAX_JSON_READ_BYTES): larger ones come as a download. */
export const MAX_TEXT_BYTES = 5 * 1024 * 1024;
/** Largest JSON request body (the API's default body limit): a bigger save goes as an upload. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
/** Largest upload the API takes (MAX_UPLOAD_BYTES). */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

export const listKey = (scope: ScopeName, path: string) => ['files', scope, path] as const;

export const listFolder = (scope: ScopeName, path: string) => api<Listing>(apiUrl(scope, path));

/** Creates one folder; its parent must exist (409 when something of that name does). */
export const makeFolder = (scope: ScopeName, path: string) => api<unknown>(`${apiUrl(scope, path)}?mkdir`, { method: 'POST', json: { type: 'directory' } });

/** Creates or replaces a text file through PUT (bodies up to MAX_JSON_BODY_BYTES). */
export const writeText = (scope: ScopeName, path: string, content: string) => api<{ size: number }>(apiUrl(scope, path), { method: 'PUT', json: { content } });

/** Deletes a file or an empty folder. */
export const removeEntry = (scope: ScopeName, path: string) => api<unknown>(apiUrl(scope, path), { method: 'DELETE' });

const authHeaders = (): Record<string, string> => {
  const token = storedToken();
  return token ? { authorization: `Bearer ${token}` } : {};
};

/**
 * The ApiFailure of a refused request from its status and body text, signing the operator out
 * on an authentication failure, as api() does.
 */
export function failureOf(status: number, statusText: string, text: string): ApiFailure {
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

async function refused(response: Response): Promise<ApiFailure> {
  return failureOf(response.status, response.statusText, await response.text());
}

/**
 * A file for the editor, always asked for as JSON (?raw=0): text comes as UTF-8, anything else
 * as base64 and is said to be binary (the editor offers the download instead). A file the
 * page already knows to be binary by its name (the API's own list, read-form.ts) or too large
 * (`knownSize`, from the listing) is not fetched at all; one that grew past the JSON limit
 * meanwhile is refused by the API with PAYLOAD_TOO_LARGE, and said to be too large too.
 * (Fetching without ?raw=0 and cancelling a binary answer's body would show as an aborted
 * request in the browser: no.)
 */
export async function openFile(scope: ScopeName, path: string, knownSize: number | null): Promise<Opened> {
  if (knownSize !== null && knownSize > MAX_TEXT_BYTES) return { kind: 'binary', size: knownSize };
  if (binaryByName(baseName(path))) return { kind: 'binary', size: knownSize };
  let file: FileContent;
  try {
    file = await api<FileContent>(`${apiUrl(scope, path)}?raw=0`);
  } catch (error) {
    if (error instanceof ApiFailure && error.code === 'PAYLOAD_TOO_LARGE') return { kind: 'binary', size: knownSize ?? MAX_TEXT_BYTES + 1 };
    throw error;
  }
  if (file.encoding !== 'utf8') return { kind: 'binary', size: file.size };
  return { kind: 'text', content: file.content, size: file.size };
}

/**
 * Saves a file to the browser's downloads: its bytes (?raw=1, any size) fetched with the
 * token (a plain link could not send it), then handed over as a blob URL.
 */
export async function downloadFile(scope: ScopeName, path: string, name: string): Promise<void> {
  const response = await fetch(`${apiUrl(scope, path)}?raw=1`, { headers: authHeaders() });
  if (!response.ok) throw await refused(response);
  const url = URL.createObjectURL(await response.blob());
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = name;
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // The click has started the download by now; the URL is no longer needed after it.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}

/**
 * Uploads one file into the folder at `dir` (multipart, a "file" part named `name`), telling
 * `onProgress` the bytes sent so far. XMLHttpRequest, because fetch reports no upload progress.
 * Resolves with the size the API wrote; rejects with an ApiFailure (status 0: no answer).
 */
export function uploadFile(scope: ScopeName, dir: string, name: string, file: Blob, onProgress: (sent: number) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', apiUrl(scope, dir));
    for (const [key, value] of Object.entries(authHeaders())) request.setRequestHeader(key, value);
    request.upload.onprogress = (event) => onProgress(event.loaded);
    request.onload = () => {
      if (request.status === 201) {
        onProgress(file.size);
        try {
          resolve((JSON.parse(request.responseText) as { size: number }).size);
        } catch {
          resolve(file.size);
        }
      } else reject(failureOf(request.status, request.statusText, request.responseText));
    };
    request.onerror = () => reject(new ApiFailure(0, 'NETWORK', 'The connection to the controller failed during the upload.'));
    request.onabort = () => reject(new ApiFailure(0, 'ABORTED', 'The upload was cancelled.'));
    const form = new FormData();
    // The name as a field too, before the file: a browser escapes quotes and line breaks in a
    // part's filename, the field carries the name exactly (upload.ts reads it first).
    form.append('filename', name);
    form.append('file', file, name);
    request.send(form);
  });
}

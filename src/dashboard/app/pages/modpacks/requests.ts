/**
 * The modpack routes (src/http/routes/modpacks.ts) as the import dialog calls them: look a pack
 * up, import it from its host into a new group or dedicated service, or upload a pack file
 * (the raw body, parameters in the query) with its progress. An import still running after a
 * few seconds is answered 202 with a job, polled here until it ends.
 */
import { api, ApiFailure, storedToken } from '../../api';
import { failureOf } from '../files/requests';
import type { PackTarget } from './rules';

/** ResolveAnswerSchema, src/core/modpacks/model.ts: the fields the dialog shows. */
export interface PackFacts {
  source: 'MODRINTH' | 'CURSEFORGE_API' | 'SERVER_PACK';
  host: 'modrinth' | 'curseforge';
  name: string;
  summary: string;
  version: string;
  mcVersion: string;
  /** FABRIC, FORGE or NEOFORGE; '' when unknown. */
  modloader: string;
  modloaderVersion: string;
  totalFiles: number | null;
  serverFiles: number | null;
  /** The pack file itself was read (false: only the host's listing answered, see note). */
  inspected: boolean;
  note?: string;
}

/** ImportResultSchema: what a finished import says. */
export interface ImportResult {
  success: true;
  message: string;
  jobId: string;
  groupName: string;
  filesDownloaded: number;
  filesFailed: number;
  files: { downloaded: number; extracted: number; skipped: { path: string; reason: string }[] };
}

/** AcceptedSchema: still running, poll the job. */
interface Accepted {
  success: true;
  message: string;
  jobId: string;
  state: 'running';
  poll: string;
}

interface JobView {
  state: 'running' | 'succeeded' | 'failed';
  result: ImportResult | null;
  error: { error: string; message: string; status: number } | null;
}

type Outcome = ImportResult | Accepted;

/** How often a running import is asked after (ms). */
const POLL_EVERY = 1000;

export const resolvePack = (source: string) => api<PackFacts>('/api/modpacks/resolve', { method: 'POST', json: { source } });

const IMPORT_PATH: Record<PackTarget, string> = { group: '/api/modpacks/import', dedicated: '/api/dedicated/modpack/import' };
const UPLOAD_PATH: Record<PackTarget, string> = { group: '/api/modpacks/upload', dedicated: '/api/dedicated/modpack/upload' };

/** An import from the pack's host, `source` as resolve took it; `background` hears when it goes on as a job (202). */
export async function importFromHost(target: PackTarget, source: string, fields: Record<string, unknown>, background: () => void, live: () => boolean): Promise<ImportResult> {
  return settle(await api<Outcome>(IMPORT_PATH[target], { method: 'POST', json: { source, ...fields } }), background, live);
}

export interface Upload {
  /** The import's outcome, once the file is sent and the controller is done with it. */
  done: Promise<ImportResult>;
  /** Stops sending the file (rejects `done` with ABORTED). */
  abort: () => void;
}

/**
 * Sends `file` as the raw body (parameters in the query), telling `progress` the bytes sent so
 * far: XMLHttpRequest, because fetch reports no upload progress. Then as importFromHost.
 */
export function uploadPack(target: PackTarget, file: File, fields: Record<string, unknown>, progress: (sent: number) => void, background: () => void, live: () => boolean): Upload {
  const request = new XMLHttpRequest();
  const query = new URLSearchParams({ fileName: file.name });
  for (const [key, value] of Object.entries(fields)) query.set(key, String(value));
  const sent = new Promise<Outcome>((resolve, reject) => {
    request.open('POST', `${UPLOAD_PATH[target]}?${query}`);
    const token = storedToken();
    if (token) request.setRequestHeader('authorization', `Bearer ${token}`);
    request.setRequestHeader('content-type', 'application/octet-stream');
    request.upload.onprogress = (event) => progress(event.loaded);
    request.upload.onload = () => progress(file.size);
    request.onload = () => {
      if (request.status === 201 || request.status === 202) {
        try {
          resolve(JSON.parse(request.responseText) as Outcome);
        } catch {
          reject(new ApiFailure(request.status, 'HTTP_' + request.status, 'The controller’s answer could not be read.'));
        }
      } else reject(failureOf(request.status, request.statusText, request.responseText));
    };
    request.onerror = () => reject(new ApiFailure(0, 'NETWORK', 'The connection to the controller failed during the upload.'));
    // The controller may have had the whole file by then (the browser reports what it sent, not what arrived): it imports it then.
    request.onabort = () => reject(new ApiFailure(0, 'ABORTED', 'The upload was stopped. If the whole file had already reached the controller, it imports it anyway: the list shows whether it did.'));
    request.send(file);
  });
  return { done: sent.then((outcome) => settle(outcome, background, live)), abort: () => request.abort() };
}

/** A finished import as it is; a running one polled until it ends (a failed job throws its error), while `live()`. */
async function settle(outcome: Outcome, background: () => void, live: () => boolean): Promise<ImportResult> {
  if (!('state' in outcome)) return outcome;
  background();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, POLL_EVERY));
    if (!live()) throw new ApiFailure(0, 'CLOSED', 'The dialog was closed; the import goes on in the controller.');
    const job = await api<JobView>(`/api/modpacks/jobs/${encodeURIComponent(outcome.jobId)}`);
    if (job.state === 'succeeded' && job.result) return job.result;
    if (job.state === 'failed') throw new ApiFailure(job.error?.status ?? 500, job.error?.error ?? 'IMPORT_FAILED', job.error?.message ?? 'the import failed');
  }
}

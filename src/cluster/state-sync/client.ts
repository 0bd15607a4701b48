import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsyncSync, lstatSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '../../log';
import { RefusedEntry, split, TenantTree, type OpenedFile } from '../../core/tenancy/fs';
import { monotonicNow } from '../../core/time/monotonic';
import { SkipReport } from '../../core/tenancy/fs/report';
import { HashCache } from './hash-cache';
import { buildManifest, byPath, MAX_MANIFEST_BYTES, manifestProblem, type Manifest } from './manifest';
import { multipartBody } from './multipart-body';
import { FILE_PART_PREFIX, MANIFEST_PART } from './wire';

/**
 * The agent's side of state sync, over the controller's state routes (an agent reaches them on
 * the cluster's TLS port with its own node secret, through a fetch that trusts only the pinned
 * certificate; the controller's own local sync over loopback with the master token):
 *
 *   pushState: local manifest → GET manifest → POST only the files whose hash differs,
 *              streamed from disk (multipart-body.ts)
 *   pullState: GET manifest → delete extras, download what differs; each file is written
 *              beside its place and renamed over it only once its size and SHA-256 are the
 *              manifest's (a file changed on the way never replaces anything)
 *
 * The local folder is a service's work dir, read and written by the tenant rule (tenancy/fs): a
 * push never follows a link nor opens a FIFO (what it leaves out is in `skipped` and the log),
 * and a pull never writes through a link (a link where a folder goes is replaced, a link where
 * a file goes is replaced by the file).
 *
 * Failures are StateSyncError with a message that says what to do.
 */

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface SyncConnection {
  /** Where the state routes are: `https://<pinned host>:<agent_port>` for an agent, the API's address for the controller itself. */
  baseUrl: string;
  /** The bearer token: a node's own secret (an agent), the master token (the controller). */
  token: string;
  /** The service (`<Group>-<N>`). */
  service: string;
  /** The local work dir. */
  dir: string;
  /** Group `sync.excludes`: never pushed; never deleted or overwritten by a pull. */
  excludes?: readonly string[];
  fetch?: Fetch;
  /** Reuse across calls so unchanged files are not hashed again. */
  cache?: HashCache;
  /** Where entries left out are named (see tenancy/fs/report.ts). */
  log?: Logger;
}

export interface PushOptions extends SyncConnection {
  /**
   * Upload at most about this many bytes per request (default 512 MiB, under the controller's
   * 1 GiB request ceiling). A larger change goes in several pushes, each committed; only the
   * last one carries the full manifest, so the canonical copy is complete once it returns.
   */
  maxRequestBytes?: number;
}

export interface PushSummary {
  success: true;
  filesReceived: number;
  bytesReceived: number;
  filesInManifest: number;
  /** Relative paths uploaded, in order. */
  uploaded: string[];
  /** POST requests made (1 unless the change was split). */
  requests: number;
  /**
   * Local entries not pushed: names state sync cannot carry (control characters and the like),
   * and what the tenant rule leaves out (links, FIFOs, files with other hard links).
   */
  skipped: { path: string; reason: string }[];
}

export interface PullSummary {
  downloaded: string[];
  deleted: string[];
  bytesDownloaded: number;
  filesInManifest: number;
}

export class StateSyncError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
    /** With a 429: the controller's Retry-After. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'StateSyncError';
  }
}

const DEFAULT_MAX_REQUEST_BYTES = 512 * 1024 * 1024;

/** Makes the controller's canonical copy of `service` equal to `dir` (minus excludes). */
export async function pushState(options: PushOptions): Promise<PushSummary> {
  const skipped: PushSummary['skipped'] = [];
  const report = new SkipReport('state push', options.dir, options.log);
  const skip = (path: string, reason: string) => {
    skipped.push({ path, reason });
    report.skip(path, reason);
  };
  const tree = TenantTree.open(options.dir);
  try {
    const local = await buildManifest(options.dir, { excludes: options.excludes, cache: options.cache ?? new HashCache(), onUnsyncable: skip, onSkipped: skip });
    const remote = await fetchManifest(options);
    const changed = Object.keys(local.files).filter((rel) => {
      const have = remote.files[rel];
      const want = local.files[rel]!;
      return !have || have.sha256 !== want.sha256 || have.size !== want.size;
    });

    const batches = splitBatches(changed, local, options.maxRequestBytes ?? DEFAULT_MAX_REQUEST_BYTES);
    const summary: PushSummary = { success: true, filesReceived: 0, bytesReceived: 0, filesInManifest: 0, uploaded: [], requests: 0, skipped };
    const sent = new Set<string>();
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i]!;
      for (const rel of batch) sent.add(rel);
      // An intermediate push keeps what the controller has and adds this batch; the last is the full manifest.
      const manifest = i === batches.length - 1 ? local : partialManifest(local, remote, sent);
      const result = await postPush(options, tree, manifest, batch);
      summary.filesReceived += result.filesReceived;
      summary.bytesReceived += result.bytesReceived;
      summary.filesInManifest = result.filesInManifest;
      summary.uploaded.push(...batch);
      summary.requests++;
    }
    return summary;
  } finally {
    tree?.close();
    report.finish();
  }
}

/**
 * Makes `dir` equal to the controller's canonical copy of `service` (excluded paths left alone).
 * An empty canonical copy means nothing was ever pushed: the folder is left as it is rather
 * than emptied, so a first start never loses files that exist only here.
 */
export async function pullState(options: SyncConnection): Promise<PullSummary> {
  const remote = await fetchManifest(options);
  const tree = TenantTree.open(options.dir, { create: true });
  if (!tree) throw new StateSyncError(`pulling the state of ${options.service}: ${options.dir} could not be created`);
  const report = new SkipReport('state pull', options.dir, options.log);
  try {
    if (Object.keys(remote.files).length === 0) return { downloaded: [], deleted: [], bytesDownloaded: 0, filesInManifest: 0 };
    const local = await buildManifest(options.dir, { excludes: options.excludes, cache: options.cache ?? new HashCache(), onSkipped: (rel, reason) => report.skip(rel, reason) });
    const summary: PullSummary = { downloaded: [], deleted: [], bytesDownloaded: 0, filesInManifest: Object.keys(remote.files).length };

    const emptied = new Set<string>();
    for (const rel of Object.keys(local.files)) {
      if (Object.hasOwn(remote.files, rel)) continue;
      tree.remove(rel);
      summary.deleted.push(rel);
      if (rel.includes('/')) emptied.add(dirname(rel));
    }
    for (const [rel, entry] of Object.entries(remote.files)) {
      const have = local.files[rel];
      if (have && have.sha256 === entry.sha256 && have.size === entry.size) continue;
      await download(options, tree, rel, entry);
      summary.downloaded.push(rel);
      summary.bytesDownloaded += entry.size;
    }
    pruneEmptyFolders(tree, emptied);
    return summary;
  } finally {
    tree.close();
    report.finish();
  }
}

// ---------------------------------------------------------------------------------------------

const serviceUrl = (options: SyncConnection, rest: string) => `${options.baseUrl.replace(/\/+$/, '')}/api/services/${encodeURIComponent(options.service)}/state/${rest}`;
const filePath = (rel: string) => rel.split('/').map(encodeURIComponent).join('/');

/** How often an idempotent request refused with 429 is tried again (a pull of many files can meet the rate limit). */
const RATE_LIMIT_RETRIES = 30;
const MAX_RETRY_WAIT_MS = 60_000;
/**
 * How long a push refused with 429 (this node's other pushes fill its share, or the rate limit)
 * is tried again, each time with a fresh body: about as long as a large push of another service
 * takes.
 */
const PUSH_RETRY_FOR_MS = 15 * 60_000;

async function call(options: SyncConnection, url: string, init: RequestInit, what: string): Promise<Response> {
  const doFetch = options.fetch ?? fetch;
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${options.token}`);
  // A streamed body can be sent once; only bodiless (GET) requests are retried.
  const retries = init.body === undefined ? RATE_LIMIT_RETRIES : 0;
  for (let attempt = 0; ; attempt++) {
    let response: Response;
    try {
      response = await doFetch(url, { ...init, headers });
    } catch (error) {
      // The body failed, not the network: a file changed under the push (see openForPush).
      if (error instanceof StateSyncError) throw error;
      if (error instanceof RefusedEntry) throw new StateSyncError(`${what} for ${options.service}: ${error.message}; it changed while it was pushed and was not sent`);
      throw new StateSyncError(`${what}: could not reach the controller at ${options.baseUrl} (${(error as Error).message}); check that it runs and that this node can reach its API port`);
    }
    if (response.ok) return response;
    if (response.status === 429 && attempt < retries) {
      await response.body?.cancel();
      const seconds = Number(response.headers.get('retry-after'));
      await Bun.sleep(Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_RETRY_WAIT_MS) : 1000);
      continue;
    }
    throw await refusal(response, options, what);
  }
}

/** The controller's error body in words an operator can act on. */
async function refusal(response: Response, options: SyncConnection, what: string): Promise<StateSyncError> {
  let code = '';
  let message = '';
  try {
    const body = (await response.json()) as { error?: unknown; message?: unknown };
    code = typeof body.error === 'string' ? body.error : '';
    message = typeof body.message === 'string' ? body.message : '';
  } catch {
    message = response.statusText;
  }
  const said = `${response.status}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`;
  const hint = (() => {
    switch (response.status) {
      case 401:
        return "the controller did not accept this node's secret (a revoked or forgotten node enrols again: remove data/node.json on the agent)";
      case 403:
        return 'this node may sync only the instances it runs or last ran, and only with its own secret (the cluster token and service tokens cannot sync state)';
      case 404:
        return `check that ${options.service} is an instance of a STATIC group with [group.sync] enabled = true, placed on this node`;
      case 409:
        return 'another push for this service is in flight; retry when it has finished';
      case 413:
        return 'the request is larger than the controller accepts; push with a smaller maxRequestBytes';
      case 429:
        return "this node's share of concurrent pushes, or the controller's rate limit ([api] service_rate_limit), was used up; try again later";
      case 507:
        return 'the controller is out of state-sync quota';
      default:
        return null;
    }
  })();
  const retryAfter = Number(response.headers.get('retry-after'));
  return new StateSyncError(`${what} for ${options.service} failed: ${said}${hint ? ` (${hint})` : ''}`, response.status, code || undefined, Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 60) : undefined);
}

async function fetchManifest(options: SyncConnection): Promise<Manifest> {
  const response = await call(options, serviceUrl(options, 'manifest'), { method: 'GET' }, 'reading the state manifest');
  const text = await readCapped(response, MAX_MANIFEST_BYTES);
  if (text === null) throw new StateSyncError(`reading the state manifest for ${options.service}: the answer is larger than ${MAX_MANIFEST_BYTES} bytes; refused`);
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Named below.
  }
  const problem = manifestProblem(body);
  if (problem) throw new StateSyncError(`reading the state manifest for ${options.service}: the controller's answer is not a manifest (${problem})`);
  return body as Manifest;
}

/** The body as text, or null once it passes `limit` bytes (the rest is not read). */
async function readCapped(response: Response, limit: number): Promise<string | null> {
  if (!response.body) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > limit) {
      await response.body.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function postPush(options: SyncConnection, tree: TenantTree | null, manifest: Manifest, files: readonly string[]): Promise<{ filesReceived: number; bytesReceived: number; filesInManifest: number }> {
  const deadline = monotonicNow() + PUSH_RETRY_FOR_MS;
  let response: Response;
  for (let wait = 1000; ; wait = Math.min(wait * 2, 10_000)) {
    // A fresh body each try: a streamed body is sent once.
    const { body, contentType } = multipartBody([
      { name: MANIFEST_PART, text: JSON.stringify(manifest) },
      ...files.map((rel) => ({ name: `${FILE_PART_PREFIX}${rel}`, filename: basename(rel), open: () => openForPush(options, tree, rel) })),
    ]);
    try {
      response = await call(options, serviceUrl(options, 'sync'), { method: 'POST', body, headers: { 'content-type': contentType } }, 'pushing the state');
      break;
    } catch (error) {
      await body.cancel().catch(() => undefined);
      if (!(error instanceof StateSyncError) || error.status !== 429 || monotonicNow() + wait > deadline) throw error;
      await Bun.sleep(Math.max(wait, (error.retryAfterSeconds ?? 0) * 1000));
    }
  }
  const answer = (await response.json()) as { filesReceived?: unknown; bytesReceived?: unknown; filesInManifest?: unknown };
  const number = (v: unknown) => (typeof v === 'number' ? v : 0);
  return { filesReceived: number(answer.filesReceived), bytesReceived: number(answer.bytesReceived), filesInManifest: number(answer.filesInManifest) };
}

/** Upload batches of about `limit` bytes each, in path order; never empty (one push deletes extras). */
function splitBatches(changed: readonly string[], local: Manifest, limit: number): string[][] {
  const batches: string[][] = [[]];
  let size = 0;
  for (const rel of [...changed].sort(byPath)) {
    const bytes = local.files[rel]!.size;
    const current = batches[batches.length - 1]!;
    if (current.length > 0 && size + bytes > limit) {
      batches.push([rel]);
      size = bytes;
    } else {
      current.push(rel);
      size += bytes;
    }
  }
  return batches;
}

/** Files the controller already has with the wanted content, plus those uploaded so far. */
function partialManifest(local: Manifest, remote: Manifest, sent: ReadonlySet<string>): Manifest {
  const files: Manifest['files'] = {};
  for (const [rel, entry] of Object.entries(local.files)) {
    const have = remote.files[rel];
    if (sent.has(rel) || (have && have.sha256 === entry.sha256 && have.size === entry.size)) files[rel] = entry;
  }
  return { files };
}

/** A file listed in the manifest, opened again to be sent: by the same rule, or the push fails naming it. */
function openForPush(options: SyncConnection, tree: TenantTree | null, rel: string): OpenedFile {
  const file = tree?.openRead(rel) ?? null;
  if (file === null) throw new StateSyncError(`pushing the state of ${options.service}: ${rel} vanished from ${options.dir} while it was pushed; push again`);
  return file;
}

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Downloads one file next to its place, checks size and SHA-256, then renames it over. The
 * folders on the way are made real folders first (a file or link in the way is removed, never
 * followed), and the temp file is created and renamed inside the folder itself.
 */
async function download(options: SyncConnection, tree: TenantTree, rel: string, entry: { sha256: string; size: number }): Promise<void> {
  const { dir, name } = split(rel);
  await tree.withFolderAsync(dir, 'replace', async (folder) => {
    const response = await call(options, serviceUrl(options, `file/${filePath(rel)}`), { method: 'GET' }, `downloading ${rel}`);
    const tempName = `.${name.slice(0, 200)}.svc-pull-${randomBytes(6).toString('hex')}`;
    const temp = `${folder.base}/${tempName}`;
    const fd = openSync(temp, CREATE_FLAGS, 0o644);
    const hasher = new Bun.CryptoHasher('sha256');
    let size = 0;
    try {
      try {
        if (response.body) {
          for await (const chunk of response.body) {
            size += chunk.byteLength;
            if (size > entry.size) break;
            let offset = 0;
            while (offset < chunk.byteLength) offset += writeSync(fd, chunk, offset);
            hasher.update(chunk);
          }
        }
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const sha256 = hasher.digest('hex');
      if (size !== entry.size || sha256 !== entry.sha256) {
        throw new StateSyncError(`downloading ${rel} for ${options.service}: got ${size} bytes with SHA-256 ${sha256}, the manifest says ${entry.size} bytes with ${entry.sha256}; the canonical copy probably changed during the pull (a push came in), pull again`);
      }
      tree.adoptFile(folder, tempName);
      // A folder where the file belongs is not part of the canonical copy.
      if (isFolder(`${folder.base}/${name}`)) tree.removeAll(rel);
      renameSync(temp, `${folder.base}/${name}`);
    } catch (error) {
      try {
        unlinkSync(temp);
      } catch {
        // Renamed already, or never there.
      }
      throw error;
    }
  });
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Removes folders left empty by deleted extras, deepest first, up to (never including) the root. */
function pruneEmptyFolders(tree: TenantTree, folders: ReadonlySet<string>): void {
  const candidates = new Set<string>();
  for (const folder of folders) {
    const segments = folder.split('/');
    for (let i = segments.length; i > 0; i--) candidates.add(segments.slice(0, i).join('/'));
  }
  for (const rel of [...candidates].sort((a, b) => b.split('/').length - a.split('/').length)) tree.removeEmptyFolder(rel);
}

import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { unzipToDirectory } from '../core/zip/unzip';
import { ZipFormatError } from '../core/zip/zip-directory';
import { digestDirectory } from '../cluster/template-digest';
import type { Fetch } from './trust';
import { checkTemplateRef } from './names';

/** A template with more files than this is refused (its directory alone would be ~80 MB). */
const MAX_TEMPLATE_ENTRIES = 1_000_000;

/** Where templates come from: the controller's data routes over the pinned channel. */
export interface TemplateSource {
  /** `https://<pinned host>:<agent_port>` (trust.ts `Channel.dataOrigin`). */
  origin: string;
  /** fetch with the pinned certificate as the only trust anchor (`Channel.fetch`). */
  fetch: Fetch;
  /** The bearer token: this node's own secret. */
  token(): string;
}

/**
 * Templates by hash: `cache/templates/<name>@<hash>/` holds one template as the controller
 * serves it (overlay included), where the hash is the content digest START_SERVICE named over
 * the pinned socket (cluster/template-digest.ts). A hash already there is used as is;
 * otherwise the ZIP is streamed to a file beside it, unpacked from disk into a temporary
 * folder (memory stays flat for any template size), its digest computed and compared, and only
 * then renamed into place: a half-done download, or one whose bytes differ from what the
 * controller named (changed on the way or since), is never mistaken for a template.
 */
export class TemplateCache {
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    private readonly root: string,
    private readonly source: TemplateSource,
  ) {}

  ensure(name: string, hash: string, software: string): Promise<string> {
    // `<name>@<hash>` is a folder here: neither may walk out of the cache.
    try {
      checkTemplateRef(name, hash);
    } catch (error) {
      return Promise.reject(error);
    }
    const dir = join(this.root, `${name}@${hash}`);
    if (existsSync(dir)) return Promise.resolve(dir);
    const running = this.inflight.get(dir);
    if (running) return running;
    const download = this.download(name, hash, software, dir).finally(() => this.inflight.delete(dir));
    this.inflight.set(dir, download);
    return download;
  }

  private async download(name: string, hash: string, software: string, dir: string): Promise<string> {
    const url = new URL(`/api/templates/${encodeURIComponent(name)}/download`, this.source.origin);
    url.searchParams.set('software', software);
    let response: Response;
    try {
      response = await this.source.fetch(url, { headers: { authorization: `Bearer ${this.source.token()}` }, signal: AbortSignal.timeout(120_000) });
    } catch (error) {
      throw new Error(`template ${name}: cannot fetch it from ${url.origin}: ${(error as Error).message}`);
    }
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new Error(`template ${name}: the controller answered ${response.status}: ${body.message ?? response.statusText}`);
    }
    // Only an early answer: what decides is the digest of what was unpacked, below.
    const served = response.headers.get('x-template-hash');
    if (served && served !== hash) {
      await response.body?.cancel();
      throw new Error(`template ${name} changed since the start was sent (hash ${served.slice(0, 12)}…, expected ${hash.slice(0, 12)}…); the next start fetches it again`);
    }
    const temp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    const archive = `${temp}.zip`;
    rmSync(temp, { recursive: true, force: true });
    try {
      mkdirSync(this.root, { recursive: true });
      // Streamed to disk as it arrives, never held whole.
      await Bun.write(archive, response);
      await unzipToDirectory(archive, temp, { maxEntries: MAX_TEMPLATE_ENTRIES }).catch((error: unknown) => {
        if (error instanceof ZipFormatError) throw new Error(`template ${name}: the archive cannot be unpacked: ${error.message}`);
        throw error;
      });
      const unpacked = await digestDirectory(temp);
      if (unpacked !== hash) {
        throw new Error(
          `template ${name}: what arrived (digest ${unpacked.slice(0, 12)}…) is not what the controller named over the pinned channel (${hash.slice(0, 12)}…): refused and not cached; if the template changed meanwhile, the next start fetches it again`,
        );
      }
      renameSync(temp, dir);
    } catch (error) {
      rmSync(temp, { recursive: true, force: true });
      if (existsSync(dir)) return dir; // another download won the race
      throw error;
    } finally {
      rmSync(archive, { force: true });
    }
    return dir;
  }
}

import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { unzipSync } from 'fflate';

/**
 * Templates by hash: `cache/templates/<name>@<hash>/` holds one template as the controller
 * serves it (overlay included). A hash already there is used as is; otherwise the ZIP is
 * downloaded, unpacked into a temporary folder and renamed into place, so a half-done
 * download is never mistaken for a template.
 */
export class TemplateCache {
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(
    private readonly root: string,
    private readonly controller: string,
    private readonly token: string,
  ) {}

  ensure(name: string, hash: string, software: string): Promise<string> {
    const dir = join(this.root, `${name}@${hash}`);
    if (existsSync(dir)) return Promise.resolve(dir);
    const running = this.inflight.get(dir);
    if (running) return running;
    const download = this.download(name, hash, software, dir).finally(() => this.inflight.delete(dir));
    this.inflight.set(dir, download);
    return download;
  }

  private async download(name: string, hash: string, software: string, dir: string): Promise<string> {
    const url = new URL(`/api/templates/${encodeURIComponent(name)}/download`, this.controller);
    url.searchParams.set('software', software);
    const response = await fetch(url, { headers: { authorization: `Bearer ${this.token}` }, signal: AbortSignal.timeout(120_000) });
    if (!response.ok) {
      const body = (await response.json().catch(() => ({}))) as { message?: string };
      throw new Error(`template ${name}: the controller answered ${response.status}: ${body.message ?? response.statusText}`);
    }
    const served = response.headers.get('x-template-hash');
    if (served && served !== hash) throw new Error(`template ${name} changed while it was fetched (hash ${served.slice(0, 12)}…, expected ${hash.slice(0, 12)}…); the next start fetches it again`);
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    const temp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    rmSync(temp, { recursive: true, force: true });
    mkdirSync(temp, { recursive: true });
    try {
      for (const [entry, bytes] of Object.entries(files)) {
        if (entry.endsWith('/')) continue;
        const target = resolve(temp, entry);
        if (!target.startsWith(temp + sep)) throw new Error(`template ${name}: the archive entry "${entry}" points outside the template`);
        mkdirSync(dirname(target), { recursive: true });
        writeFileSync(target, bytes);
      }
      mkdirSync(this.root, { recursive: true });
      renameSync(temp, dir);
    } catch (error) {
      rmSync(temp, { recursive: true, force: true });
      if (existsSync(dir)) return dir; // another download won the race
      throw error;
    }
    return dir;
  }
}

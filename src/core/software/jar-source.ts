import { join } from 'node:path';
import { ApiError } from '../../errors';
import type { Logger } from '../../log';
import type { Group } from '../groups/model';
import { downloadFile } from './download';
import { isFile } from './forge-args';
import { isInstallerSoftware } from './installer-resolver';
import { isInsideWorkDir, jarFileFor } from './jar-name';
import { isDownloadable, resolveServerJar } from './jar-resolver';
import type { ServerInstalls } from './server-installs';
import { UpstreamError } from './upstream/http';
import type { RemoteFile } from './upstream/model';
import type { Upstreams } from './upstream/upstreams';

/**
 * Where a start gets a server jar the templates lack. The preparer calls it with the group's
 * template folders before they are copied; it knows nothing about HTTP.
 */
export interface JarSource {
  /**
   * Makes sure the jar the group's command runs is in one of `layerDirs` (its template stack in
   * copy order: the first is the group's own template, the global overlay last). When none has
   * it and svc can fetch the kind, it is downloaded into the first; a FORGE/NEOFORGE server is
   * installed there by its installer instead. SERVICE_START_FAILED, with the upstream and URL
   * (or the Java and the installer's last lines) named, when that fails; the template is left
   * as it was then.
   */
  ensureJar(group: Group, layerDirs: readonly string[]): Promise<void>;
}

export interface JarDownloadsDeps {
  upstreams: Upstreams;
  /** Seconds (`[software] download_timeout`), read at each download. */
  timeoutSeconds: () => number;
  log: Logger;
  progressEveryMs?: number;
  /** Runs the FORGE/NEOFORGE installers (absent: those kinds get nothing). */
  installs?: ServerInstalls;
}

/**
 * The JarSource that downloads from the kind's upstream. Concurrent starts needing the same
 * file (same destination) share one download: a keyed map of the downloads in flight.
 */
export class JarDownloads implements JarSource {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Downloads begun, and starts that waited on one already running (tests, the doctor). */
  readonly stats = { started: 0, joined: 0 };

  constructor(private readonly deps: JarDownloadsDeps) {}

  async ensureJar(group: Group, layerDirs: readonly string[]): Promise<void> {
    if (isInstallerSoftware(group.software)) return this.deps.installs?.ensureInstalled(group, layerDirs);
    const target = layerDirs[0];
    // Without a version there is nothing to ask for; the command builder reports it.
    if (!target || !isDownloadable(group.software) || group.version.trim() === '') return;
    const jar = jarFileFor(group.software, group.jarName || null);
    // A bad jarName is reported by the jar check, with the operator's own wording.
    if (jar === null || !isInsideWorkDir(jar)) return;
    // A group's own command decides what it runs; it gets the jar only when it names it.
    if (group.startCommand.length > 0 && !group.startCommand.some((arg) => arg === jar || arg.endsWith(`/${jar}`))) return;
    if (layerDirs.some((dir) => isFile(join(dir, jar)))) return;

    const dest = join(target, jar);
    let pending = this.inFlight.get(dest);
    if (pending) {
      this.stats.joined++;
    } else {
      this.stats.started++;
      pending = this.fetch(group, dest, jar).finally(() => this.inFlight.delete(dest));
      this.inFlight.set(dest, pending);
    }
    await pending;
  }

  /** Downloads in flight right now (tests, the doctor). */
  get active(): number {
    return this.inFlight.size;
  }

  private async fetch(group: Group, dest: string, jar: string): Promise<void> {
    if (!isDownloadable(group.software)) return;
    const { log } = this.deps;
    const missing = `${jar} is missing in the template of group ${group.name} and could not be downloaded`;
    let file: RemoteFile;
    try {
      file = await resolveServerJar(this.deps.upstreams, group.software, group.version, group.modloaderVersion);
    } catch (error) {
      if (error instanceof UpstreamError) throw new ApiError('SERVICE_START_FAILED', `${missing}: ${error.message}`);
      throw error;
    }
    log.info({ group: group.name, url: file.url, dest }, `${jar} is missing in the templates of ${group.name}: fetching ${file.label}`);
    try {
      await downloadFile(file, dest, { timeoutMs: this.deps.timeoutSeconds() * 1000, log, progressEveryMs: this.deps.progressEveryMs, userAgent: this.deps.upstreams.http.userAgent() });
    } catch (error) {
      throw new ApiError('SERVICE_START_FAILED', `${missing}: ${(error as Error).message}`);
    }
  }
}

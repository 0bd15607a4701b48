import { mkdirSync, realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../errors';
import type { Logger } from '../../log';
import type { Group } from '../groups/model';
import { siblingPath, tidySiblings } from '../templates/deploy-siblings';
import { downloadFile, PROGRESS_EVERY_MS } from './download';
import { moveInstalled } from './install-merge';
import { isInstalled, placeLaunchTarget } from './installed-layout';
import { isInstallerSoftware, resolveInstaller, type InstallerSoftware } from './installer-resolver';
import { isInsideWorkDir, jarFileFor } from './jar-name';
import { describeJava, selectJava, type JavaConfig } from './java';
import { InstallerError, runInstaller } from './run-installer';
import { usesForgeArgsFile } from './start-command';
import { UpstreamError } from './upstream/http';
import type { InstallerFile } from './upstream/model';
import type { Upstreams } from './upstream/upstreams';
import { parseGameVersion, type GameVersion } from './version';

/** How long one installer run may take: it downloads the game and its libraries itself. */
export const INSTALL_TIMEOUT_MS = 10 * 60 * 1000;

export interface ServerInstallsDeps {
  upstreams: Upstreams;
  /** Seconds (`[software] download_timeout`) for the installer jar's download, read at each install. */
  downloadTimeoutSeconds: () => number;
  /** `[java]`, read at each install. */
  java: () => JavaConfig;
  log: Logger;
  /** Default INSTALL_TIMEOUT_MS; tests shorten it. */
  installTimeoutMs?: number;
  /** Download progress and installer lines reach the info log at most this often. */
  progressEveryMs?: number;
}

/**
 * Installs FORGE and NEOFORGE servers into a group's first template on start: the loader's
 * installer is downloaded (checksum verified) into a staging folder beside the template and
 * run there with the group's Java (`--installServer`); what it wrote is then moved into the
 * template without overwriting the operator's files. A failed, killed or timed-out install
 * leaves the template as it was. Concurrent starts for the same template share one install.
 */
export class ServerInstalls {
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Installs begun, and starts that waited on one already running (tests, the doctor). */
  readonly stats = { started: 0, joined: 0 };

  constructor(private readonly deps: ServerInstallsDeps) {}

  /**
   * Makes sure what the built command of a FORGE/NEOFORGE group runs (`libraries/…/unix_args.txt`
   * from 1.17 on, the server jar before) is in one of `layerDirs` (its template stack, the
   * group's own template first), installing into the first when none has it. Nothing happens
   * for other kinds, for a group with its own `startCommand` (svc cannot know what that needs),
   * or without a Minecraft version (the command builder reports that). SERVICE_START_FAILED,
   * naming the Java, the URL or the installer's last lines, when the install fails.
   */
  async ensureInstalled(group: Group, layerDirs: readonly string[]): Promise<void> {
    const target = layerDirs[0];
    const { software } = group;
    if (!target || !isInstallerSoftware(software) || group.startCommand.length > 0) return;
    const version = parseGameVersion(group.version);
    const jar = jarFileFor(software, group.jarName || null);
    // A bad jarName is reported by the jar check, with the operator's own wording.
    if (version === null || jar === null || !isInsideWorkDir(jar)) return;
    if (layerDirs.some((dir) => isInstalled(dir, software, version, jar))) return;

    let pending = this.inFlight.get(target);
    if (pending) {
      this.stats.joined++;
    } else {
      this.stats.started++;
      pending = this.install(group, software, version, target, jar).finally(() => this.inFlight.delete(target));
      this.inFlight.set(target, pending);
    }
    await pending;
  }

  /** Installs running right now (tests, the doctor). */
  get active(): number {
    return this.inFlight.size;
  }

  private async install(group: Group, software: InstallerSoftware, version: GameVersion, target: string, jar: string): Promise<void> {
    const { log } = this.deps;
    const fail = (reason: string) => new ApiError('SERVICE_START_FAILED', `${software} is not installed in the template of group ${group.name} and could not be installed: ${reason}`);
    let file: InstallerFile;
    try {
      file = await resolveInstaller(this.deps.upstreams, software, group.version, group.modloaderVersion);
    } catch (error) {
      if (error instanceof UpstreamError) throw fail(error.message);
      throw error;
    }
    const javaConfig = this.deps.java();
    const java = selectJava(software, group.version, javaConfig, group.javaPath);
    const javaDescription = describeJava(software, group.version, javaConfig, group.javaPath);
    const progressEveryMs = this.deps.progressEveryMs ?? PROGRESS_EVERY_MS;

    let staging: string | null = null;
    try {
      // Beside the template's real folder (it may be a symlink), so the final renames stay on one file system.
      const home = realpathSync(target);
      try {
        tidySiblings(home); // staging folders a killed controller left behind
      } catch {
        // Best effort: a leftover costs disk space, never correctness.
      }
      staging = siblingPath(home, 'install');
      mkdirSync(staging);
      log.info({ group: group.name, url: file.url, java, staging }, `${software} is not installed in the templates of ${group.name}: installing ${file.label}`);
      try {
        await downloadFile(file, join(staging, file.fileName), { timeoutMs: this.deps.downloadTimeoutSeconds() * 1000, log, progressEveryMs, userAgent: this.deps.upstreams.http.userAgent() });
      } catch (error) {
        throw fail((error as Error).message);
      }
      try {
        await runInstaller({ java, javaDescription, installer: file.fileName, cwd: staging, timeoutMs: this.deps.installTimeoutMs ?? INSTALL_TIMEOUT_MS, log, progressEveryMs });
      } catch (error) {
        if (error instanceof InstallerError) throw fail(error.message);
        throw error;
      }
      const marker = placeLaunchTarget(staging, software, version, jar, file.fileName);
      if (marker === null) {
        const wanted = usesForgeArgsFile(software, version) ? `neither libraries/.../unix_args.txt nor a ${software.toLowerCase()}-*.jar` : `no ${software.toLowerCase()}-*.jar`;
        throw fail(`the installer (${file.fileName}) exited 0 but wrote ${wanted}`);
      }
      const report = moveInstalled(staging, home, { skip: new Set([file.fileName, `${file.fileName}.log`]), last: [marker] });
      const kept = report.kept.length > 0 ? `; the template's own ${report.kept.join(', ')} kept` : '';
      log.info({ group: group.name, dir: target, start: marker }, `installed ${file.label} into the template of ${group.name}${kept}`);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // The file system refused (no space, permissions): moveInstalled has undone its renames.
      throw fail(`${(error as Error).message} (the template was left as it was)`);
    } finally {
      if (staging !== null) removeStaging(staging, log);
    }
  }
}

/** The staging folder goes whatever happened; one that will not is left to `tidySiblings` and logged. */
function removeStaging(staging: string, log: Logger): void {
  try {
    rmSync(staging, { recursive: true, force: true });
  } catch (error) {
    log.warn({ staging }, `could not remove the installer's staging folder: ${(error as Error).message}`);
  }
}

import { existsSync, readFileSync } from 'node:fs';
import { rename, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ApiError } from '../../errors';
import type { Logger } from '../../log';
import type { GroupStore } from '../groups/store';
import { SerialQueue } from '../services/serial';
import { downloadFile } from '../software/download';
import { resolveTemplateStack } from '../templates/stack';
import { UpstreamError } from '../software/upstream/http';
import { modrinthChecksum, primaryFile, type ModrinthProject, type ModrinthVersion } from '../software/upstream/modrinth';
import type { RemoteFile } from '../software/upstream/model';
import type { Upstreams } from '../software/upstream/upstreams';
import { platformOfSoftware, pluginPlatform, type PluginPlatform } from './platform';
import type { PluginSource } from './search';

export const InstalledPluginSchema = Type.Object({
  name: Type.String(),
  file: Type.String({ description: 'file name under the template plugins/ folder' }),
  version: Type.String(),
});
export type InstalledPlugin = Static<typeof InstalledPluginSchema>;

export interface InstallRequest {
  source: PluginSource;
  slug?: string;
  projectId?: string;
  group: string;
  /** Default: the group's version. */
  mcVersion?: string;
  /** Default: the platform of the group's software. */
  platform?: string;
}

export interface InstallResult {
  message: string;
  installed: InstalledPlugin[];
}

/** One file of an install plan: a plugin or one of its required dependencies. */
interface Planned {
  key: string;
  name: string;
  version: string;
  fileName: string;
  file: RemoteFile;
}

interface Plan {
  files: Map<string, Planned>;
  /** Required dependencies svc cannot fetch (not on Hangar): named in the answer. */
  byHand: string[];
}

/** What svc installed into a plugins folder, per project, so a newer install replaces the older file. */
const MANIFEST = '.svc-plugins.json';
const ManifestSchema = Type.Record(Type.String(), Type.Object({ file: Type.String(), version: Type.String(), name: Type.String() }));
type Manifest = Static<typeof ManifestSchema>;

const MAX_DEPENDENCY_DEPTH = 8;

export interface PluginInstallerDeps {
  upstreams: Upstreams;
  groups: GroupStore;
  templatesRoot: string;
  timeoutSeconds: () => number;
  log: Logger;
}

/**
 * Installs a plugin and its required dependencies into the `plugins/` folder of a group's
 * first template (later starts copy it into every instance). Everything is resolved before
 * anything is written; every file is hash-checked where the repository publishes a hash and
 * written atomically; a failure removes what this install wrote. A project installed before
 * is not fetched twice; a newer version replaces the older file (no duplicates).
 */
export class PluginInstaller {
  private readonly queues = new Map<string, SerialQueue>();

  constructor(private readonly deps: PluginInstallerDeps) {}

  async install(request: InstallRequest): Promise<InstallResult> {
    const group = this.deps.groups.require(request.group);
    const platformName = request.platform ?? platformOfSoftware(group.software);
    if (platformName === null) {
      throw new ApiError('VALIDATION_FAILED', `group ${group.name} runs ${group.software}, which takes mods, not plugins; name a platform to install anyway`);
    }
    const platform = pluginPlatform(platformName);
    const mcVersion = request.mcVersion ?? group.version;
    const id = request.source === 'modrinth' ? (request.projectId ?? request.slug) : (request.slug ?? request.projectId);
    if (!id) throw new ApiError('VALIDATION_FAILED', 'name the plugin by slug or projectId');
    const templateDir = resolveTemplateStack(this.deps.templatesRoot, group)[0]!.dir;
    const pluginsDir = join(templateDir, 'plugins');

    const plan: Plan = { files: new Map(), byHand: [] };
    try {
      if (request.source === 'modrinth') await this.planModrinth(id, platform, mcVersion, plan, 0);
      else await this.planHangar(id, platform, mcVersion, plan, 0);
    } catch (error) {
      throw asApiError(error);
    }
    const queue = this.queues.get(pluginsDir) ?? new SerialQueue();
    this.queues.set(pluginsDir, queue);
    return queue.run(() => this.write(plan, pluginsDir, group.name, mcVersion, platform));
  }

  /** Downloads what is not there yet, then retires replaced files and records the manifest. */
  private async write(plan: Plan, pluginsDir: string, groupName: string, mcVersion: string, platform: PluginPlatform): Promise<InstallResult> {
    const manifest = readManifest(pluginsDir);
    const installed: InstalledPlugin[] = [];
    const present: string[] = [];
    const written: string[] = [];
    const replaced: string[] = [];
    try {
      for (const item of plan.files.values()) {
        const dest = join(pluginsDir, item.fileName);
        if (existsSync(dest)) {
          present.push(`${item.name} ${item.version}`);
          manifest[item.key] = { file: item.fileName, version: item.version, name: item.name };
          continue;
        }
        await downloadFile(item.file, dest, { timeoutMs: this.deps.timeoutSeconds() * 1000, log: this.deps.log, userAgent: this.deps.upstreams.http.userAgent() });
        written.push(dest);
        const before = manifest[item.key];
        if (before && before.file !== item.fileName) replaced.push(join(pluginsDir, before.file));
        manifest[item.key] = { file: item.fileName, version: item.version, name: item.name };
        installed.push({ name: item.name, file: item.fileName, version: item.version });
      }
      await writeManifest(pluginsDir, manifest);
    } catch (error) {
      for (const file of written) await unlink(file).catch(() => undefined);
      throw asApiError(error);
    }
    for (const file of replaced) await unlink(file).catch(() => undefined);
    let message = `${installed.length > 0 ? `installed ${installed.map((p) => `${p.name} ${p.version}`).join(', ')}` : 'nothing new to install'} into the plugins of group ${groupName} (Minecraft ${mcVersion}, ${platform.name})`;
    if (present.length > 0) message += `; already there: ${present.join(', ')}`;
    if (plan.byHand.length > 0) message += `; required but not on Hangar, install by hand: ${plan.byHand.join(', ')}`;
    this.deps.log.info({ group: groupName, installed: installed.map((p) => p.file) }, message);
    return { message, installed };
  }

  private async planModrinth(idOrSlug: string, platform: PluginPlatform, mcVersion: string, plan: Plan, depth: number): Promise<void> {
    const { modrinth } = this.deps.upstreams;
    const project = await modrinth.project(idOrSlug);
    if (!project) throw new ApiError('PLUGIN_VERSION_NOT_FOUND', `Modrinth has no project "${idOrSlug}"`);
    if (plan.files.has(`modrinth:${project.id}`)) return;
    const versions = (await modrinth.versions(project.id, platform.modrinthLoaders, mcVersion)) ?? [];
    const version = versions.find((v) => v.version_type === 'release') ?? versions[0];
    if (!version) {
      throw new ApiError('PLUGIN_VERSION_NOT_FOUND', `${project.title} has no version on Modrinth for Minecraft ${mcVersion} on ${platform.name} (loaders ${platform.modrinthLoaders.join(', ')})`);
    }
    await this.planModrinthVersion(project, version, platform, mcVersion, plan, depth);
  }

  private async planModrinthVersion(project: ModrinthProject, version: ModrinthVersion, platform: PluginPlatform, mcVersion: string, plan: Plan, depth: number): Promise<void> {
    const file = primaryFile(version);
    if (!file) throw new ApiError('PLUGIN_VERSION_NOT_FOUND', `${project.title} ${version.version_number} on Modrinth has no file`);
    const fileName = safeFileName(file.filename);
    plan.files.set(`modrinth:${project.id}`, {
      key: `modrinth:${project.id}`,
      name: project.title,
      version: version.version_number,
      fileName,
      file: { upstream: 'Modrinth', url: file.url, label: `${project.title} ${version.version_number}`, checksum: modrinthChecksum(file), fileName },
    });
    if (depth >= MAX_DEPENDENCY_DEPTH) return;
    const { modrinth } = this.deps.upstreams;
    for (const dep of version.dependencies) {
      if (dep.dependency_type !== 'required') continue;
      // A pinned version wins (the author chose it); otherwise the dependency's best version for this game and platform.
      const pinned = dep.version_id ? await modrinth.version(dep.version_id) : null;
      if (pinned) {
        if (plan.files.has(`modrinth:${pinned.project_id}`)) continue;
        const depProject = await modrinth.project(pinned.project_id);
        if (!depProject) throw new ApiError('PLUGIN_VERSION_NOT_FOUND', `Modrinth has no project ${pinned.project_id}, required by ${project.title}`);
        await this.planModrinthVersion(depProject, pinned, platform, mcVersion, plan, depth + 1);
      } else if (dep.project_id) {
        await this.planModrinth(dep.project_id, platform, mcVersion, plan, depth + 1);
      }
    }
  }

  private async planHangar(slugOrId: string, platform: PluginPlatform, mcVersion: string, plan: Plan, depth: number): Promise<void> {
    const { hangar } = this.deps.upstreams;
    const project = await hangar.project(slugOrId);
    if (!project) throw new ApiError('PLUGIN_VERSION_NOT_FOUND', `Hangar has no project "${slugOrId}"`);
    const key = `hangar:${project.id ?? project.namespace.slug}`;
    if (plan.files.has(key)) return;
    const versions = (await hangar.versions(project.namespace.slug, platform.hangar, mcVersion)) ?? [];
    const version = versions.find((v) => v.channel?.name.toLowerCase() === 'release') ?? versions[0];
    if (!version) throw new ApiError('PLUGIN_VERSION_NOT_FOUND', `${project.name} has no version on Hangar for Minecraft ${mcVersion} on ${platform.hangar}`);
    const download = version.downloads[platform.hangar];
    if (!download?.fileInfo || !download.downloadUrl) {
      const where = download?.externalUrl ? ` (${download.externalUrl})` : '';
      throw new ApiError('PLUGIN_VERSION_NOT_FOUND', `${project.name} ${version.name} is not hosted on Hangar${where}; download it by hand`);
    }
    const fileName = safeFileName(download.fileInfo.name);
    plan.files.set(key, {
      key,
      name: project.name,
      version: version.name,
      fileName,
      file: { upstream: 'Hangar', url: hangar.absolute(download.downloadUrl), label: `${project.name} ${version.name}`, checksum: { algorithm: 'sha256', hex: download.fileInfo.sha256Hash.toLowerCase() }, fileName },
    });
    if (depth >= MAX_DEPENDENCY_DEPTH) return;
    for (const dep of version.pluginDependencies?.[platform.hangar] ?? []) {
      if (!dep.required) continue;
      if (dep.projectId === null || dep.projectId === undefined) {
        plan.byHand.push(dep.externalUrl ? `${dep.name} (${dep.externalUrl})` : dep.name);
        continue;
      }
      await this.planHangar(String(dep.projectId), platform, mcVersion, plan, depth + 1);
    }
  }
}

/** Repository errors become SERVICE_UNAVAILABLE; API errors pass; download failures too (their message names the URL). */
function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof UpstreamError) return new ApiError('SERVICE_UNAVAILABLE', error.message);
  return new ApiError('SERVICE_UNAVAILABLE', (error as Error).message);
}

/** A repository's file name as a plain name inside plugins/: no separators, not hidden. */
function safeFileName(name: string): string {
  const cleaned = name.replace(/[/\\\0:]/g, '_').replace(/^\.+/, '');
  return cleaned === '' ? 'plugin.jar' : cleaned;
}

function readManifest(dir: string): Manifest {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
    return Value.Check(ManifestSchema, parsed) ? parsed : {};
  } catch {
    return {}; // none yet, or unreadable: start afresh (the files themselves are kept)
  }
}

async function writeManifest(dir: string, manifest: Manifest): Promise<void> {
  const temp = join(dir, `${MANIFEST}.tmp`);
  await writeFile(temp, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(temp, join(dir, MANIFEST));
}

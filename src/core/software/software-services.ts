import type { Config } from '../../config/schema';
import { ApiError } from '../../errors';
import type { Logger } from '../../log';
import type { GroupStore } from '../groups/store';
import { PluginInstaller, type InstallRequest, type InstallResult } from '../plugins/install';
import { searchPlugins, type PluginQuery, type PluginSearchResult } from '../plugins/search';
import { JarDownloads } from './jar-source';
import type { SoftwareName } from './kinds';
import { ServerInstalls } from './server-installs';
import { UpstreamError } from './upstream/http';
import type { LoaderVersionList, VersionList } from './upstream/model';
import { Upstreams } from './upstream/upstreams';
import { listLoaderVersions, listVersions } from './version-lists';

export interface SoftwareServicesDeps {
  /** `[software]`, read live. */
  config: () => Config['software'];
  /** `[java]`, read live: the Java a FORGE/NEOFORGE installer runs with when the group names none. */
  java: () => Config['java'];
  groups: GroupStore;
  templatesRoot: string;
  log: Logger;
  /** Tests shorten the progress interval. */
  progressEveryMs?: number;
  /** How long a FORGE/NEOFORGE installer may run (default 10 minutes; tests shorten it). */
  installTimeoutMs?: number;
}

/**
 * Everything svc fetches from the public Minecraft services, behind one object the composition
 * root builds once: version lists (briefly cached), server jars and Forge/NeoForge installs for
 * starts, plugins.
 * Upstream failures leave here as SERVICE_UNAVAILABLE (503) naming the upstream and its URL:
 * the dependency is down, not svc, so never a 500.
 */
export class SoftwareServices {
  readonly upstreams: Upstreams;
  readonly jars: JarDownloads;
  readonly installs: ServerInstalls;
  readonly plugins: PluginInstaller;

  constructor(deps: SoftwareServicesDeps) {
    this.upstreams = new Upstreams(deps.config);
    const timeoutSeconds = () => deps.config().download_timeout;
    this.installs = new ServerInstalls({
      upstreams: this.upstreams,
      downloadTimeoutSeconds: timeoutSeconds,
      java: deps.java,
      log: deps.log,
      installTimeoutMs: deps.installTimeoutMs,
      progressEveryMs: deps.progressEveryMs,
    });
    this.jars = new JarDownloads({ upstreams: this.upstreams, timeoutSeconds, log: deps.log, progressEveryMs: deps.progressEveryMs, installs: this.installs });
    this.plugins = new PluginInstaller({ upstreams: this.upstreams, groups: deps.groups, templatesRoot: deps.templatesRoot, timeoutSeconds, log: deps.log });
  }

  versions(software: SoftwareName): Promise<VersionList> {
    return unavailableOnUpstreamError(listVersions(this.upstreams, software));
  }

  loaderVersions(software: SoftwareName, mcVersion: string): Promise<LoaderVersionList> {
    return unavailableOnUpstreamError(listLoaderVersions(this.upstreams, software, mcVersion));
  }

  searchPlugins(query: PluginQuery): Promise<PluginSearchResult> {
    return unavailableOnUpstreamError(searchPlugins(this.upstreams, query));
  }

  installPlugin(request: InstallRequest): Promise<InstallResult> {
    return this.plugins.install(request);
  }
}

async function unavailableOnUpstreamError<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof UpstreamError) throw new ApiError('SERVICE_UNAVAILABLE', error.message);
    throw error;
  }
}

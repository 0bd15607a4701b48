import { ApiError } from '../../errors';
import type { Config } from '../../config/schema';
import type { Group } from '../groups/model';
import type { GroupStore } from '../groups/store';
import { SOFTWARE } from '../software/kinds';
import { buildStartCommand } from '../software/start-command';
import { checkJar } from '../software/jar-check';
import { findForgeArgsFile } from '../software/forge-args';
import { forwardingModeFor } from '../templates/forwarding-mode';
import { loadForwardingSecret } from '../templates/forwarding-secret';
import { applyServicePatches } from '../templates/patches';
import { provisionStack } from '../templates/provision';
import { resolveTemplateStack } from '../templates/stack';
import type { CommandPlan, ServicePreparer } from './manager';
import type { ServiceRegistry } from './registry';
import { readyBackends } from './proxy-sync';

export interface PreparerDeps {
  templatesRoot: string;
  dataDir: string;
  java: Config['java'];
  groups: GroupStore;
  registry: ServiceRegistry;
  /** The API port services call back on (known once the API listens). */
  apiPort: () => number;
  tokens: { master: string; service: string };
  /** The controller's environment; SVC_* variables are never passed on (they may hold secrets). */
  env: Record<string, string | undefined>;
}

/**
 * Makes a work dir ready and says how to run it: the template stack copied in (copy-on-write
 * where the file system allows), the per-service patches (EULA, ports, forwarding), then the
 * command: the group's own startCommand, or the one built for its software once the jar is
 * known to be there.
 */
export class GroupServicePreparer implements ServicePreparer {
  constructor(private readonly deps: PreparerDeps) {}

  async prepare(group: Group, service: { name: string; port: number; workDir: string; isStatic: boolean }): Promise<CommandPlan> {
    const layers = resolveTemplateStack(this.deps.templatesRoot, group);
    await provisionStack(
      layers.map((layer) => layer.dir),
      service.workDir,
      { overwrite: !service.isStatic },
    );
    this.patch(group, service);
    return this.plan(group, service);
  }

  /**
   * The per-service patches (EULA, port, forwarding; a proxy's server list) on files already
   * in place. Dedicated services, which have their own directory and no templates, use it too.
   */
  patch(group: Group, service: { port: number; workDir: string }): void {
    applyServicePatches(service.workDir, {
      software: group.software,
      port: service.port,
      forwarding: forwardingModeFor(this.backendVersions()),
      secret: loadForwardingSecret(this.deps.dataDir),
      servers: SOFTWARE[group.software].isProxy ? readyBackends(this.deps.registry, this.deps.groups) : undefined,
    });
  }

  /** The command (SERVICE_START_FAILED when the jar is missing) and environment for a prepared work dir. */
  plan(group: Group, service: { name: string; port: number; workDir: string }): CommandPlan {
    const argv = this.command(group, service);
    return { argv, env: this.environment(group, service, SOFTWARE[group.software].isProxy) };
  }

  private command(group: Group, service: { name: string; port: number; workDir: string }): string[] {
    if (group.startCommand.length === 0) {
      const problem = checkJar(service.workDir, group.software, group.jarName || null, group.version);
      if (problem) throw new ApiError('SERVICE_START_FAILED', problem);
    }
    const loader = group.software === 'FORGE' || group.software === 'NEOFORGE' ? group.software : null;
    return buildStartCommand({
      software: group.software,
      version: group.version,
      memory: group.memory,
      jvmArgs: group.jvmArgs,
      jvmOptimize: group.jvmOptimize,
      jarName: group.jarName || null,
      javaPath: group.javaPath || null,
      javaConfig: this.deps.java,
      serviceName: service.name,
      groupName: group.name,
      port: service.port,
      apiPort: this.deps.apiPort(),
      startCommand: group.startCommand,
      forgeArgsFile: loader ? findForgeArgsFile(service.workDir, loader) : null,
    });
  }

  /** Backends get the derived service token, proxies the master token (reference behaviour). */
  private environment(group: Group, service: { name: string; port: number }, isProxy: boolean): Record<string, string> {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(this.deps.env)) if (value !== undefined && !key.startsWith('SVC_')) env[key] = value;
    return {
      ...env,
      SVC_API_TOKEN: isProxy ? this.deps.tokens.master : this.deps.tokens.service,
      SVC_API_URL: `http://127.0.0.1:${this.deps.apiPort()}`,
      SVC_SERVICE_NAME: service.name,
      SVC_SERVICE_GROUP: group.name,
      SVC_SERVICE_PORT: String(service.port),
    };
  }

  private backendVersions(): string[] {
    return this.deps.groups
      .list()
      .filter((g) => !SOFTWARE[g.software].isProxy)
      .map((g) => g.version);
  }
}

import type { Config } from '../../config/schema';
import type { Group } from '../groups/model';
import type { JarSource } from '../software/jar-source';
import type { GroupStore } from '../groups/store';
import { SOFTWARE } from '../software/kinds';
import { inheritedEnv, serviceCommand } from '../software/service-command';
import { forwardingModeFor } from '../templates/forwarding-mode';
import { loadForwardingSecret } from '../templates/forwarding-secret';
import { applyServicePatches } from '../templates/patches';
import { provisionStack } from '../templates/provision';
import { resolveTemplateStack } from '../templates/stack';
import type { CommandPlan, ServicePreparer } from './manager-deps';
import type { ServiceRegistry } from './registry';
import type { CredentialIssuer } from '../tenancy/service-credentials';
import { readyBackends } from './proxy-sync';

export interface PreparerDeps {
  templatesRoot: string;
  dataDir: string;
  java: Config['java'];
  groups: GroupStore;
  registry: ServiceRegistry;
  /** The API port services call back on (known once the API listens). */
  apiPort: () => number;
  /** Mints each launch's own SVC_API_TOKEN (core/tenancy). */
  credentials: CredentialIssuer;
  /** Proxies: `[advanced] haproxy-protocol` to match the load balancer (undefined: none in front). */
  haproxyProtocol?: boolean;
  /** The controller's environment; SVC_* variables are never passed on (they may hold secrets). */
  env: Record<string, string | undefined>;
  /** Fetches a server jar (or installs a Forge/NeoForge server) none of the group's templates has into its first one (absent: nothing is fetched). */
  jars?: JarSource;
}

/**
 * Makes a work dir ready and says how to run it: a missing server jar fetched (a Forge/NeoForge
 * server installed) into the group's first template, the template stack copied in (copy-on-write
 * where the file system allows), the per-service patches (EULA, ports, forwarding), then the
 * command: the group's own startCommand, or the one built for its software once the jar is
 * known to be there.
 */
export class GroupServicePreparer implements ServicePreparer {
  constructor(private readonly deps: PreparerDeps) {}

  async prepare(group: Group, service: { name: string; port: number; workDir: string; isStatic: boolean }): Promise<CommandPlan> {
    const layers = resolveTemplateStack(this.deps.templatesRoot, group);
    await this.deps.jars?.ensureJar(group, layers.map((layer) => layer.dir));
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
      haproxyProtocol: this.deps.haproxyProtocol,
    });
  }

  /** The command (SERVICE_START_FAILED when the jar is missing) and environment for a prepared work dir. */
  plan(group: Group, service: { name: string; port: number; workDir: string }): CommandPlan {
    const argv = serviceCommand(group, { ...service, group: group.name }, this.deps.java, this.deps.apiPort());
    return { argv, env: this.environment(group, service, SOFTWARE[group.software].isProxy) };
  }

  /**
   * Each launch gets a credential of its own, bound to the service and its role: never the
   * master token nor the shared derived token (which every plugin on every server could use
   * as the operator, or to speak for players).
   */
  private environment(group: Group, service: { name: string; port: number }, isProxy: boolean): Record<string, string> {
    return {
      ...inheritedEnv(this.deps.env),
      SVC_API_TOKEN: this.deps.credentials.issue(service.name, isProxy ? 'proxy' : 'backend'),
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

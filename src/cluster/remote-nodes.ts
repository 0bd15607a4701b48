import type { Group } from '../core/groups/model';
import { templateStack } from '../core/groups/model';
import type { GroupStore } from '../core/groups/store';
import type { ProcessHandle } from '../core/supervisor/process';
import type { RemoteNodes } from '../core/services/manager-deps';
import { memoryMaxMb } from '../core/software/memory';
import { SOFTWARE } from '../core/software/kinds';
import { forwardingModeFor } from '../core/templates/forwarding-mode';
import { loadForwardingSecret } from '../core/templates/forwarding-secret';
import { resolveTemplateStack } from '../core/templates/stack';
import type { CredentialIssuer } from '../core/tenancy/service-credentials';
import type { Cluster } from './cluster';
import { templateDigest } from './template-archive';
import type { JarSource } from '../core/software/jar-source';

/**
 * The manager's view of the agents: placement through the cluster, and a launch described as
 * one START_SERVICE (templates by hash, the group's launch settings, forwarding, credentials).
 */
export class ClusterRemoteNodes implements RemoteNodes {
  constructor(
    private readonly cluster: Cluster,
    private readonly deps: { templatesRoot: string; dataDir: string; groups: GroupStore; credentials: CredentialIssuer; jars?: JarSource },
  ) {}

  place(group: Group, options: { exclude?: string; target?: string }): string {
    return this.cluster.place({ memoryMb: memoryMaxMb(group.memory), preferredNode: group.placementNode, fallback: group.placementFallback, ...options });
  }

  hostOf(nodeId: string): string {
    return this.cluster.hostOf(nodeId);
  }

  async launch(nodeId: string, group: Group, service: { name: string; isStatic: boolean }): Promise<{ handle: ProcessHandle; port: number }> {
    // Checks (and creates an implicit default) exactly as a local start would, and fetches a
    // missing server jar into the first template before the hashes are taken: agents get it with the template.
    const layers = resolveTemplateStack(this.deps.templatesRoot, group);
    await this.deps.jars?.ensureJar(group, layers.map((layer) => layer.dir));
    // Each template by the digest of what its ZIP carries: the agent refuses (and never caches) anything else.
    const templates = await Promise.all(templateStack(group).map(async (name) => ({ name, hash: await templateDigest(this.deps.templatesRoot, name, group.software) })));
    const isProxy = SOFTWARE[group.software].isProxy;
    const backendVersions = this.deps.groups.list().filter((g) => !SOFTWARE[g.software].isProxy).map((g) => g.version);
    return this.cluster.launch(nodeId, {
      serviceName: service.name,
      groupName: group.name,
      isStatic: service.isStatic,
      software: group.software,
      version: group.version,
      memory: group.memory,
      jvmArgs: group.jvmArgs,
      jvmOptimize: group.jvmOptimize,
      jarName: group.jarName,
      javaPath: group.javaPath,
      startCommand: group.startCommand,
      templates,
      forwarding: { mode: forwardingModeFor(backendVersions), secret: loadForwardingSecret(this.deps.dataDir) },
      pullState: service.isStatic && group.syncEnabled,
      syncExcludes: group.syncExcludes,
      // The service's own credential, minted here: the agent passes it on and never holds a token of ours.
      env: { SVC_API_TOKEN: this.deps.credentials.issue(service.name, isProxy ? 'proxy' : 'backend'), SVC_SERVICE_NAME: service.name, SVC_SERVICE_GROUP: group.name },
    });
  }

  recover(service: { name: string; nodeId: string; pid: number; startedAt: Date }): ProcessHandle {
    return this.cluster.recover(service.name, service.nodeId, service.pid, service.startedAt);
  }
}

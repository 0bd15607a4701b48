import type { EventBus } from '../../events/bus';
import type { Logger } from '../../log';
import type { GroupStore } from '../groups/store';
import { SOFTWARE } from '../software/kinds';
import { forwardingModeFor } from '../templates/forwarding-mode';
import { loadForwardingSecret } from '../templates/forwarding-secret';
import { patchProxy } from '../templates/patches';
import { LOCAL_NODE, type ServiceRegistry } from './registry';

/** Backend changes that alter a proxy's server list. */
const TRIGGERS = new Set(['SERVICE_READY', 'SERVICE_STOPPED', 'SERVICE_CRASHED', 'SERVICE_DRAINING', 'GROUP_UPDATED', 'GROUP_DELETED']);
const DEBOUNCE_MS = 200;

export interface ProxySyncDeps {
  bus: EventBus;
  log: Logger;
  registry: ServiceRegistry;
  groups: GroupStore;
  dataDir: string;
  /** `[advanced] haproxy-protocol` to match the load balancer (undefined: none in front). */
  haproxyProtocol?: boolean;
  /** Writes a console line to a service (the manager's exec). */
  exec: (service: string, command: string) => void;
}

/** The READY backends as a proxy lists them, lobbies first. */
export function readyBackends(registry: ServiceRegistry, groups: GroupStore): { name: string; host: string; port: number; lobby: boolean }[] {
  return registry
    .all()
    .filter((s) => s.state === 'READY' && !s.isProxy && s.proxyEnabled)
    .map((s) => ({ name: s.name, host: s.host, port: s.port, lobby: groups.get(s.group)?.type === 'LOBBY' }));
}

/**
 * Keeps every running proxy's `[servers]` list in step with the READY backends: after a burst
 * of backend changes (debounced), velocity.toml is rewritten and the proxy told to reload.
 */
export function keepProxiesInSync(deps: ProxySyncDeps): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const sync = () => {
    timer = null;
    const servers = readyBackends(deps.registry, deps.groups);
    const versions = deps.groups.list().filter((g) => !SOFTWARE[g.software].isProxy).map((g) => g.version);
    for (const proxy of deps.registry.all()) {
      if (!proxy.isProxy || (proxy.state !== 'READY' && proxy.state !== 'STARTING')) continue;
      // A proxy on an agent has its files there; its bridge learns the server list from the API.
      if (proxy.nodeId !== LOCAL_NODE) continue;
      try {
        const changed = patchProxy(proxy.workDir, { port: proxy.port, forwarding: forwardingModeFor(versions), servers, secret: loadForwardingSecret(deps.dataDir), haproxyProtocol: deps.haproxyProtocol });
        if (changed.includes('velocity.toml') && proxy.state === 'READY') deps.exec(proxy.name, 'velocity reload');
      } catch (error) {
        deps.log.error({ service: proxy.name, err: error }, 'could not update the proxy server list');
      }
    }
  };
  return deps.bus.subscribe((event) => {
    if (!TRIGGERS.has(event.type)) return;
    const service = event.data.service ? deps.registry.get(event.data.service) : undefined;
    if (service?.isProxy) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(sync, DEBOUNCE_MS);
    timer.unref();
  });
}

import type { Group } from '../groups/model';
import type { CommandPlan, DedicatedLaunch } from '../services/manager-deps';
import { SOFTWARE } from '../software/kinds';
import { acceptEula } from '../templates/patches';
import { setServerPort } from './directory';
import { dedicatedPolicy, type Dedicated } from './model';

/** The steps of the group preparer that apply to a directory already in place (GroupServicePreparer). */
export interface DedicatedPreparer {
  /** EULA, port, online-mode and forwarding, a proxy's server list. */
  patch(group: Group, service: { port: number; workDir: string }): void;
  /** The command (SERVICE_START_FAILED when the jar is missing, unless startCommand replaces it) and environment. */
  plan(group: Group, service: { name: string; port: number; workDir: string }): CommandPlan;
}

/**
 * How the manager runs a dedicated config. Each start patches only known keys in the existing
 * directory, never a template copy, so worlds and hand-edited files survive. A backend behind
 * the proxies gets the backend patches (online-mode off, forwarding on); one with
 * `proxyEnabled = false` is joined directly, so it gets only eula and server-port: forwarding
 * would lock its players out and online-mode off would let anyone in under any name.
 */
export function dedicatedLaunch(config: Dedicated, workDir: string, preparer: DedicatedPreparer): DedicatedLaunch {
  const policy = dedicatedPolicy(config);
  return {
    policy,
    port: config.port,
    workDir,
    proxyEnabled: config.proxyEnabled,
    prepare: async (service) => {
      if (config.proxyEnabled || SOFTWARE[config.software].isProxy) {
        preparer.patch(policy, service);
      } else {
        acceptEula(service.workDir);
        setServerPort(service.workDir, service.port);
      }
      return preparer.plan(policy, service);
    },
  };
}

import type { EventBus } from '../../events/bus';
import type { Logger } from '../../log';
import type { Group } from '../groups/model';
import type { GroupStore } from '../groups/store';
import type { PortLeases } from '../ports';
import type { MachineLimits } from '../scaling/placement';
import type { LaunchSpec, ProcessHandle } from '../supervisor/process';
import type { ManagerTiming } from './manager-timing';
import type { ServiceRegistry } from './registry';
import type { ServiceStateFile } from './state-file';

/*
 * What the service manager is built from: its dependencies and the interfaces the rest of the
 * controller implements for it (preparer, launcher, dedicated configs, state sync, the cluster's
 * remote nodes), and the options of a start. The manager's units (the files next to this one)
 * take their slice of these, so they live apart from manager.ts: a unit never imports the
 * facade that wires it.
 */

/** Turns a prepared work dir into the argv to run (software builder, or the group's startCommand). */
export interface CommandPlan {
  argv: string[];
  env: Record<string, string>;
}

/** The steps of a start that touch files: templates into the work dir, then the command. */
export interface ServicePreparer {
  prepare(group: Group, service: { name: string; port: number; workDir: string; isStatic: boolean }): Promise<CommandPlan>;
}

/**
 * A dedicated service as the manager runs it: its config seen as a one-instance static group
 * (software, memory, ready pattern, restart policy), its fixed port and its own directory.
 */
export interface DedicatedLaunch {
  policy: Group;
  port: number;
  workDir: string;
  proxyEnabled: boolean;
  prepare(service: { name: string; port: number; workDir: string }): Promise<CommandPlan>;
}

/** The dedicated configs (config/dedicated/), read when a dedicated service starts or restarts. */
export interface DedicatedSource {
  launchOf(name: string): DedicatedLaunch | undefined;
  names(): string[];
}

export interface ProcessLauncher {
  /** Before a start writes into the service's folder (isolation: what its uid still runs is ended). */
  vacate?(name: string): Promise<void>;
  launch(spec: LaunchSpec): Promise<ProcessHandle>;
  reattach(stateDir: string): Promise<{ kind: 'attached'; handle: ProcessHandle } | { kind: 'ended'; exit: { code: number | null } } | { kind: 'unknown'; reason: string }>;
}

/**
 * Agents on other machines (`[cluster] enabled`). The manager stays the one supervisor: a
 * remote service has a ProcessHandle like a local one, so READY detection, stops, kills and
 * the restart policy are the same code; only placement and the launch differ.
 */
export interface RemoteNodes {
  /** The node a new instance runs on (LOCAL_NODE for this machine); throws ApiError when none fits. */
  place(group: Group, options: { exclude?: string; target?: string }): string;
  hostOf(nodeId: string): string;
  /** Provisions and launches on the node; resolves once the agent reports the process running. */
  launch(nodeId: string, group: Group, service: { name: string; isStatic: boolean }): Promise<{ handle: ProcessHandle; port: number }>;
  /** After a controller restart: a handle bound when the node reports the process again. */
  recover(service: { name: string; nodeId: string; pid: number; startedAt: Date }): ProcessHandle;
}

export interface ManagerDeps {
  bus: EventBus;
  log: Logger;
  registry: ServiceRegistry;
  groups: GroupStore;
  ports: PortLeases;
  servicesDir: string;
  preparer: ServicePreparer;
  launcher: ProcessLauncher;
  /** Where the services are remembered across controller restarts. */
  stateFile: ServiceStateFile;
  /** Where quarantined groups are kept until an operator lifts them (data/state/quarantine.json); absent: in memory only. */
  quarantineFile?: string;
  timing?: Partial<ManagerTiming>;
  /** Dedicated services; without it, only groups run. */
  dedicated?: DedicatedSource;
  /** `[controller] max_services` / `max_memory`, read at each start; absent = no machine limit. */
  limits?: () => MachineLimits;
  /**
   * Deploy-on-stop: copies a stopped instance's new and changed files back into its group's
   * first template and resolves to how many; a failure must leave the template untouched.
   */
  deployBack?: (group: Group, workDir: string) => Promise<number>;
  stateSync?: LocalStateSync;
}

/**
 * State sync of static instances that run on this machine: the canonical copy (which agents
 * push to and pull from) is pulled into the work dir before a start and pushed after a stop,
 * so an instance moves between this machine and the agents with its files.
 */
export interface LocalStateSync {
  pull(service: string, workDir: string, excludes: readonly string[]): Promise<void>;
  push(service: string, workDir: string, excludes: readonly string[]): Promise<void>;
}

/** Where a start should run: a chosen node (migration target), or anywhere but one node. */
export interface StartOptions {
  target?: string;
  exclude?: string;
  /** Keep this instance name (a migration moves the service, it does not make a new one). */
  name?: string;
}

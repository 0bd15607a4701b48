import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Type as T, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { writeFileAtomic } from '../config/write';
import type { Config } from '../config/schema';
import type { Logger } from '../log';
import { defaultPortRanges, PortLeases } from '../core/ports';
import { SOFTWARE, type SoftwareName } from '../core/software/kinds';
import { inheritedEnv, serviceCommand } from '../core/software/service-command';
import { applyServicePatches } from '../core/templates/patches';
import { provisionStack } from '../core/templates/provision';
import type { LaunchSpec, ProcessHandle, ReattachResult } from '../core/supervisor/process';
import { residentMemoryMb } from '../core/services/process-memory';
import type { RunningService, StartServiceMessage } from '../cluster/protocol';
import type { TemplateCache } from './template-cache';
import { checkStartNames, validServiceName } from './names';
import { isolationLabel, type Isolation } from '../core/isolation/resolve';

const EntrySchema = T.Object({
  serviceName: T.String(),
  groupName: T.String(),
  port: T.Integer(),
  workDir: T.String(),
  stateDir: T.String(),
  isStatic: T.Boolean(),
  startedAt: T.Integer(),
  /** State sync: its excludes, so the push after it exits still happens when an agent restart came between (absent: not synced). */
  syncExcludes: T.Optional(T.Array(T.String())),
});
type Entry = Static<typeof EntrySchema>;

interface Held {
  entry: Entry;
  handle: ProcessHandle;
}

/** How the agent's services are launched: core/isolation's IsolatedLauncher, under the mode chosen at start. */
export interface ServiceLauncher {
  /** Before anything is written into a service's folder (uid mode: what its uid still runs is killed). */
  vacate(name: string): Promise<void>;
  launch(spec: LaunchSpec): Promise<ProcessHandle>;
  reattach(stateDir: string): Promise<ReattachResult>;
  /** The mode chosen at start. */
  readonly isolation: Isolation;
}

export interface LocalServicesDeps {
  dir: string;
  launcher: ServiceLauncher;
  log: Logger;
  templates: TemplateCache;
  java: Config['java'];
  controllerUrl: string;
  backendPortStart: number;
  /** Called for every stdout line and for each exit. */
  onLine(serviceName: string, line: string): void;
  onExit(serviceName: string, code: number | null): void;
  /** Static instances with state sync: pull before start, push after exit (logged when it fails). */
  pullState?: (serviceName: string, workDir: string, excludes: readonly string[]) => Promise<void>;
  pushState?: (serviceName: string, workDir: string, excludes: readonly string[]) => Promise<void>;
}

/**
 * The services this agent holds: provisioned from cached templates, launched with the same
 * process layer as the controller (they survive the agent, and are re-attached after an agent
 * restart from `data/services.json`), and reported to whichever controller connection is live.
 */
export class LocalServices {
  private readonly held = new Map<string, Held>();
  private readonly ports: PortLeases;
  private readonly stateFile: string;
  /** Static services with state sync, to push after they exit, with their excludes. */
  private readonly synced = new Map<string, readonly string[]>();

  constructor(private readonly deps: LocalServicesDeps) {
    this.ports = new PortLeases(defaultPortRanges(deps.backendPortStart));
    this.stateFile = join(deps.dir, 'data', 'services.json');
  }

  /** Re-attaches what the last agent process left running. */
  async recover(): Promise<void> {
    if (!existsSync(this.stateFile)) return;
    let entries: Entry[] = [];
    try {
      const raw: unknown = JSON.parse(readFileSync(this.stateFile, 'utf8'));
      entries = Array.isArray(raw) ? raw.filter((e): e is Entry => Value.Check(EntrySchema, e)) : [];
    } catch (error) {
      this.deps.log.warn({ err: error }, 'services.json is damaged; no service re-attached');
    }
    for (const entry of entries) {
      if (!validServiceName(entry.serviceName)) {
        this.deps.log.warn({ file: this.stateFile }, `not re-attached, left as it is: service name ${JSON.stringify(entry.serviceName.slice(0, 80))} is not an instance name`);
        continue;
      }
      const outcome = await this.deps.launcher.reattach(entry.stateDir).catch((error: unknown) => ({ kind: 'unknown' as const, reason: String(error) }));
      if (outcome.kind !== 'attached') {
        this.deps.log.info({ service: entry.serviceName }, `not re-attached: ${outcome.kind === 'ended' ? 'it ended while the agent was away' : outcome.reason}`);
        if (!entry.isStatic) rmSync(entry.workDir, { recursive: true, force: true });
        continue;
      }
      this.ports.adopt(entry.port, entry.serviceName);
      if (entry.syncExcludes) this.synced.set(entry.serviceName, entry.syncExcludes);
      this.hold(entry, outcome.handle);
      this.deps.log.info({ service: entry.serviceName, pid: outcome.handle.pid }, 're-attached a running service');
    }
    this.save();
  }

  running(): RunningService[] {
    return [...this.held.values()].map(({ entry, handle }) => ({
      serviceName: entry.serviceName,
      groupName: entry.groupName,
      pid: handle.pid,
      port: entry.port,
      startedAt: entry.startedAt,
      memoryUsedMb: residentMemoryMb(handle.pid),
    }));
  }

  get count(): number {
    return this.held.size;
  }

  /** uid+bwrap, uid, bwrap or none: reported to the controller at login, for its doctor. */
  get isolation(): string {
    return isolationLabel(this.deps.launcher.isolation);
  }

  /** Provision and launch; resolves with the pid and port once the process runs. */
  async start(message: StartServiceMessage): Promise<{ pid: number; port: number; startedAt: number }> {
    // Names become folders here: checked before any port, folder or download (FAILED names the field).
    checkStartNames(message);
    const name = message.serviceName;
    if (this.held.has(name)) throw new Error(`${name} already runs on this node`);
    const software = message.software as SoftwareName;
    if (!SOFTWARE[software]) throw new Error(`unknown software ${message.software}`);
    const kind = SOFTWARE[software];
    const port = await this.ports.lease(kind.isProxy ? 'proxy' : 'backend', name);
    const workDir = message.isStatic ? join(this.deps.dir, 'services', 'static', name) : join(this.deps.dir, 'services', 'temp', `${name}_${randomBytes(4).toString('hex')}`);
    try {
      await this.deps.launcher.vacate(name);
      const layers = [];
      for (const template of message.templates) layers.push(await this.deps.templates.ensure(template.name, template.hash, message.software));
      if (message.pullState && this.deps.pullState) await this.deps.pullState(name, workDir, message.syncExcludes);
      await provisionStack(layers, workDir, { overwrite: !message.isStatic });
      applyServicePatches(workDir, { software, port, forwarding: message.forwarding.mode, secret: message.forwarding.secret });
      const apiPort = Number(new URL(this.deps.controllerUrl).port || 80);
      const argv = serviceCommand({ ...message, software }, { name, group: message.groupName, port, workDir }, this.deps.java, apiPort);
      const env = { ...inheritedEnv(process.env), ...message.env, SVC_API_URL: this.deps.controllerUrl.replace(/\/$/, ''), SVC_SERVICE_PORT: String(port) };
      const handle = await this.deps.launcher.launch({ name, workDir, argv, env });
      const entry: Entry = { serviceName: name, groupName: message.groupName, port, workDir, stateDir: handle.stateDir, isStatic: message.isStatic, startedAt: handle.startedAt.getTime(), ...(message.pullState ? { syncExcludes: [...message.syncExcludes] } : {}) };
      if (message.pullState) this.synced.set(name, message.syncExcludes);
      this.hold(entry, handle);
      this.save();
      return { pid: handle.pid, port, startedAt: entry.startedAt };
    } catch (error) {
      this.ports.release(name);
      if (!message.isStatic) rmSync(workDir, { recursive: true, force: true });
      throw error;
    }
  }

  write(name: string, line: string): void {
    const held = this.held.get(name);
    if (!held) throw new Error(`${name} does not run on this node`);
    held.handle.write(line);
  }

  signal(name: string, signal: 'SIGTERM' | 'SIGKILL'): void {
    this.held.get(name)?.handle.signal(signal);
  }

  /** Graceful stop carried out here (orphans the controller no longer owns): the stop command, then a kill. */
  async stop(name: string, stopCommand: string, timeoutMs: number): Promise<void> {
    const held = this.held.get(name);
    if (!held) return;
    try {
      held.handle.write(stopCommand);
    } catch {
      // Ended already, or stdin closed: the kill below settles it.
    }
    const ended = await Promise.race([held.handle.exited.then(() => true), Bun.sleep(timeoutMs).then(() => false)]);
    if (!ended) held.handle.signal('SIGKILL');
    await held.handle.exited;
  }

  /** Every process ends (SHUTDOWN_AGENT or the agent stopping with `--stop-services`). */
  async stopAll(timeoutMs: number): Promise<void> {
    await Promise.all([...this.held.values()].map(({ entry }) => this.stop(entry.serviceName, SOFTWARE_STOP, timeoutMs)));
  }

  /** The agent exits; the processes keep running and are re-attached next time. */
  detachAll(): void {
    for (const { handle } of this.held.values()) handle.close();
    this.held.clear();
  }

  private hold(entry: Entry, handle: ProcessHandle): void {
    this.held.set(entry.serviceName, { entry, handle });
    handle.onLine((line) => this.deps.onLine(entry.serviceName, line));
    void handle.exited.then(async (exit) => {
      if (this.held.get(entry.serviceName)?.handle !== handle) return;
      handle.close();
      this.ports.release(entry.serviceName);
      // The canonical copy is current before anyone hears the service ended (a move starts elsewhere next).
      const excludes = this.synced.get(entry.serviceName);
      this.synced.delete(entry.serviceName);
      if (excludes && this.deps.pushState) {
        await this.deps.pushState(entry.serviceName, entry.workDir, excludes).catch((error: unknown) => this.deps.log.error({ service: entry.serviceName, err: error }, 'state push failed: the controller keeps the previous copy'));
      }
      this.held.delete(entry.serviceName);
      this.save();
      if (!entry.isStatic) rmSync(entry.workDir, { recursive: true, force: true });
      this.deps.onExit(entry.serviceName, exit.code);
    });
  }

  private save(): void {
    const entries = [...this.held.values()].map((h) => h.entry);
    try {
      writeFileAtomic(this.stateFile, JSON.stringify(entries, null, 2), { durable: false });
    } catch (error) {
      this.deps.log.error({ err: error }, 'could not save services.json');
    }
  }
}

const SOFTWARE_STOP = 'stop';

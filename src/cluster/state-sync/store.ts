import { lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Group } from '../../core/groups/model';
import { createBreather } from '../../core/templates/breather';
import { excludeMatcher, type ExcludeMatcher } from '../../core/templates/deploy-excludes';
import type { MetricsRegistry } from '../../core/metrics/registry';
import type { SyncView } from '../../core/services/view';
import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import { HashCache } from './hash-cache';
import { KeyedLock } from './keyed-lock';
import { buildManifest, listFiles, manifestBytes, type Manifest } from './manifest';
import { MultipartReader, boundaryOf } from '../../core/files/multipart';
import { PushStats } from './push-stats';
import { LastNodes } from './last-nodes';
import { loadHashes, saveHashes, tidyHashes } from './saved-hashes';
import { readManifestPart, receiveFiles } from './receive-push';
import { openFileStream } from './file-stream';
import { confinedFile } from '../../core/files/rel-path';
import { canonicalPath, createStage, removeLater, removeNow, swapIn, tidyStateRoot } from './stage';

/** A service whose state is synced: a `<Group>-<N>` of a STATIC group with `sync.enabled`. */
export interface SyncTarget {
  service: string;
  group: Group;
  /** The canonical copy's folder. */
  canonical: string;
  exclude: ExcludeMatcher;
}

export interface PushResult {
  success: true;
  filesReceived: number;
  bytesReceived: number;
  filesInManifest: number;
}

/**
 * Who asks: an operator (the master token, an admin) reaches every syncing instance; an agent
 * node (`node`, from its own secret) only the instances the registry says it runs or last ran.
 */
export interface SyncCaller {
  actor: Actor;
  /** The node id behind a node's own secret; absent for operators. */
  node?: string;
}

/** Pushes one node may have in flight at once; more are refused with 429 (the agent retries them in turn). */
export const MAX_PUSHES_PER_NODE = 4;

export interface StateSyncOptions {
  /** `<services dir>/state`: one canonical copy per service, by name. */
  root: string;
  groups: { get(name: string): Group | undefined };
  /** The node the registry says runs `service` now (`local`: this machine); undefined when it is not a registered instance. */
  runningOn?: (service: string) => string | undefined;
  /** Dedicated services are never synced, even when their name looks like `<Group>-<N>`. */
  isDedicated?: (name: string) => boolean;
  /** `[cluster] sync_disk_quota_bytes`, read at each push; 0 = unlimited. */
  quotaBytes: () => number;
  /** Largest push body (the route's body limit). */
  maxPushBytes: number;
  bus: EventBus;
  metrics: MetricsRegistry;
  log: Logger;
}

export const PUSH_RESULTS = ['success', 'failed', 'conflict', 'quota'] as const;
export type PushOutcome = (typeof PUSH_RESULTS)[number];

const SERVICE_NAME = /^(.+)-([1-9][0-9]{0,8})$/;

/**
 * The controller's side of state sync: the canonical copies under `<services>/state/<name>`,
 * their manifests (hashes cached by file stamp), single files, and pushes (one at a time per
 * service, staged and swapped in; see stage.ts), with the quota, the last-push facts, the
 * SYNC_COMPLETED / SYNC_FAILED events and the state-sync metrics.
 *
 * Takes values (a body stream, a content type), never an HTTP context.
 */
export class StateSync {
  readonly root: string;
  /** Resolves once the sizes of the existing canonical copies are known (the quota needs them). */
  readonly ready: Promise<void>;
  private readonly cache = new HashCache({ useCtime: false });
  /** Manifest reads and the commit's swap of one service never overlap. */
  private readonly swapLock = new KeyedLock();
  /** Services with a push in flight → bytes the push will occupy (0 until its manifest is read). */
  private readonly inFlight = new Map<string, number>();
  private readonly sizes = new Map<string, number>();
  private readonly outcomes = new Map<PushOutcome, number>(PUSH_RESULTS.map((r) => [r, 0]));
  private readonly stats: PushStats;
  private readonly lastNodes: LastNodes;
  /** Pushes in flight per node. */
  private readonly nodePushes = new Map<string, number>();

  constructor(private readonly options: StateSyncOptions) {
    this.root = options.root;
    mkdirSync(this.root, { recursive: true });
    for (const line of tidyStateRoot(this.root)) options.log.info({ root: this.root }, `state sync start-up tidy: ${line}`);
    tidyHashes(this.root);
    for (const name of this.copies()) loadHashes(this.root, name, this.cache, canonicalPath(this.root, name));
    this.stats = new PushStats(this.root, options.log);
    this.lastNodes = new LastNodes(this.root, options.log);
    this.ready = this.measureAll().catch((error: unknown) => options.log.error({ err: error }, 'could not measure the state-sync canonical copies'));
    // Hashes are brought up to date in the background, so the first manifest after a start is quick.
    void this.ready.then(() => this.warm()).catch((error: unknown) => options.log.warn({ err: error }, 'could not pre-hash the state-sync canonical copies'));
    options.metrics.gauge('svc_state_sync_bytes', "bytes of every state-sync canonical copy on the controller", () => this.totalBytes());
    options.metrics.counter('svc_state_sync_pushes_total', 'state pushes since the controller started, by result (success, failed, conflict, quota)', () =>
      PUSH_RESULTS.map((result) => ({ labels: { result }, value: this.outcomes.get(result) ?? 0 })),
    );
  }

  /** The sync target a service name stands for; SERVICE_NOT_FOUND (404) saying why when none. */
  target(service: string): SyncTarget {
    const match = SERVICE_NAME.exec(service);
    const why = 'state sync is for instances (<Group>-<N>) of STATIC groups with sync.enabled = true';
    if (!match) throw new ApiError('SERVICE_NOT_FOUND', `"${service}" is not an instance name (<Group>-<N>); ${why}`);
    if (this.options.isDedicated?.(service)) throw new ApiError('SERVICE_NOT_FOUND', `${service} is a dedicated service; ${why}`);
    const group = this.options.groups.get(match[1]!);
    if (!group) throw new ApiError('SERVICE_NOT_FOUND', `service ${service}: there is no group ${match[1]}; ${why}`);
    if (group.type !== 'STATIC') throw new ApiError('SERVICE_NOT_FOUND', `service ${service}: group ${group.name} is ${group.type}; ${why}`);
    if (!group.syncEnabled) throw new ApiError('SERVICE_NOT_FOUND', `service ${service}: group ${group.name} has sync.enabled = false; enable it in config/groups/${group.name}.toml ([group.sync] enabled = true)`);
    return { service, group, canonical: canonicalPath(this.root, service), exclude: excludeMatcher(group.syncExcludes) };
  }

  /** The manifest of a service's canonical copy; empty `files` before the first push. */
  async manifest(service: string, caller?: SyncCaller): Promise<Manifest> {
    const target = this.target(service);
    this.authorize(service, caller);
    return this.manifestOf(target);
  }

  /**
   * A node reaches only the instances the registry says it runs, or (no record now) last ran:
   * FORBIDDEN when another node (or this machine) has it, SERVICE_NOT_FOUND when it is no
   * registered instance at all. Operators reach every syncing instance. Whatever the registry
   * says is remembered as the instance's last node.
   */
  private authorize(service: string, caller: SyncCaller | undefined): void {
    const current = this.options.runningOn?.(service);
    if (current !== undefined) this.lastNodes.record(service, current);
    const node = caller?.node;
    if (node === undefined) return;
    const owner = current ?? this.lastNodes.get(service);
    const where = (id: string) => (id === 'local' ? "the controller's own machine" : `node ${id}`);
    if (owner === undefined) {
      throw new ApiError('SERVICE_NOT_FOUND', `${service} is not a registered instance: node ${node} may sync the state of the instances it runs or last ran only`);
    }
    if (owner !== node) {
      throw new ApiError('FORBIDDEN', `${service} ${current !== undefined ? 'runs' : 'last ran'} on ${where(owner)}, not on node ${node}: a node syncs the state of its own instances only`);
    }
  }

  /**
   * One file of the canonical copy, opened for streaming; PATH_TRAVERSAL (400) for a path that
   * leaves the copy (links included), PATH_NOT_FOUND (404) when it is not there. Opened under
   * the swap lock, so a push committing meanwhile never yields half of one copy and half of
   * the other.
   */
  async openFile(service: string, rel: string, caller?: SyncCaller): Promise<{ stream: ReadableStream<Uint8Array>; size: number }> {
    const target = this.target(service);
    this.authorize(service, caller);
    const shown = JSON.stringify(rel.slice(0, 200));
    return this.swapLock.run(service, async () => {
      const found = confinedFile(target.canonical, rel);
      if (!found.ok && found.reason === 'traversal') throw new ApiError('PATH_TRAVERSAL', `path ${shown} is refused: ${found.detail}; paths are relative to the canonical copy`);
      const missing = new ApiError('PATH_NOT_FOUND', `${service} has no file ${shown} in its canonical copy`);
      if (!found.ok || target.exclude(rel)) throw missing;
      try {
        return await openFileStream(found.path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw missing;
        throw error;
      }
    });
  }

  isPushing(service: string): boolean {
    return this.inFlight.has(service);
  }

  /**
   * Receives one push: a `multipart/form-data` body whose first part is the full desired
   * manifest, then a `file:<rel>` part per file the controller does not have. Committed
   * atomically or not at all. Refused with SERVICE_NOT_READY (409) while another push for the
   * service is in flight, PAYLOAD_TOO_LARGE with status 507 past the quota, VALIDATION_FAILED
   * (400) naming the file for anything wrong with the body. A node pushes only its own
   * instances (FORBIDDEN / SERVICE_NOT_FOUND, see authorize) and at most MAX_PUSHES_PER_NODE at
   * once (RATE_LIMITED, 429). Every push and every refusal is an event with the caller as
   * actor (`api:node:<id>` for a node), so the audit log names who pushed.
   */
  async push(service: string, body: ReadableStream<Uint8Array> | null, contentType: string | null, caller: SyncCaller = { actor: 'system' }): Promise<PushResult> {
    const { actor, node } = caller;
    const target = this.target(service);
    try {
      this.authorize(service, caller);
    } catch (error) {
      this.fail(service, 'failed', (error as Error).message, actor);
      throw error;
    }
    if (this.inFlight.has(service)) {
      const error = new ApiError('SERVICE_NOT_READY', `a state push for ${service} is already in flight; retry when it has finished`);
      this.fail(service, 'conflict', error.message, actor);
      throw error;
    }
    const nodePushes = node === undefined ? 0 : (this.nodePushes.get(node) ?? 0);
    if (node !== undefined && nodePushes >= MAX_PUSHES_PER_NODE) {
      const error = new ApiError('RATE_LIMITED', `node ${node} has ${nodePushes} state pushes in flight, the most one node may have at once (${MAX_PUSHES_PER_NODE}); retry when one has finished`, 429, { 'retry-after': '1' });
      this.fail(service, 'conflict', error.message, actor);
      throw error;
    }
    if (node !== undefined) this.nodePushes.set(node, nodePushes + 1);
    this.inFlight.set(service, 0);
    const started = performance.now();
    let stage: string | null = null;
    let reader: MultipartReader | null = null;
    // Hashing the current copy (slow only with a cold cache) overlaps with receiving the body.
    const currentManifest = this.manifestOf(target);
    currentManifest.catch(() => undefined);
    try {
      const boundary = boundaryOf(contentType);
      if (!boundary || !body) throw new ApiError('VALIDATION_FAILED', 'send the push as multipart/form-data (a "manifest" part, then "file:<path>" parts)');
      reader = new MultipartReader(body, boundary, this.options.maxPushBytes);
      const { manifest, partBytes } = await readManifestPart(reader, target.exclude);
      const size = manifestBytes(manifest);
      this.inFlight.set(service, size);
      await this.ready;
      // The manifest counts too: the controller keeps a hash table of about its size beside the copy.
      this.checkQuota(service, size + partBytes);
      const current = await currentManifest;
      stage = createStage(this.root, service);
      const received = await receiveFiles({ reader, manifest, current, canonical: target.canonical, stage, exclude: target.exclude, cache: this.cache });
      const staged = stage;
      const old = await this.swapLock.run(service, () => {
        const previous = swapIn(staged, target.canonical);
        this.cache.rename(staged, target.canonical);
        return previous;
      });
      stage = null;
      this.saveHashes(service, target.canonical);
      if (old) void removeLater(old, (error) => this.options.log.warn({ err: error, path: old }, 'could not remove the previous canonical copy; the next start removes it'));
      this.sizes.set(service, size);
      this.stats.record(service, { lastPushAt: new Date().toISOString(), lastPushBytes: received.bytesReceived, lastPushFiles: received.filesReceived });
      this.outcomes.set('success', (this.outcomes.get('success') ?? 0) + 1);
      const durationMs = Math.round(performance.now() - started);
      this.options.bus.publish('SYNC_COMPLETED', { service, filesInManifest: received.filesInManifest, filesReceived: received.filesReceived, bytesReceived: received.bytesReceived, durationMs }, actor);
      return { success: true, ...received };
    } catch (error) {
      if (stage) {
        this.cache.forget(stage);
        try {
          removeNow(stage);
        } catch (cleanup) {
          this.options.log.warn({ err: cleanup, path: stage }, 'could not remove a failed push stage; the next push or start removes it');
        }
      }
      await reader?.cancel();
      const quota = error instanceof ApiError && error.status === 507;
      this.fail(service, quota ? 'quota' : 'failed', error instanceof Error ? error.message : String(error), actor);
      throw error;
    } finally {
      this.inFlight.delete(service);
      if (node !== undefined) {
        const left = (this.nodePushes.get(node) ?? 1) - 1;
        if (left > 0) this.nodePushes.set(node, left);
        else this.nodePushes.delete(node);
      }
    }
  }

  /** What `/api/services` shows for a service of a syncing group; undefined for any other. */
  viewOf(record: { name: string; group: string }): SyncView | undefined {
    const group = this.options.groups.get(record.group);
    if (!group || group.type !== 'STATIC' || !group.syncEnabled) return undefined;
    const facts = this.stats.get(record.name);
    return {
      lastPushAt: facts?.lastPushAt ?? null,
      lastPushBytes: facts?.lastPushBytes ?? 0,
      lastPushFiles: facts?.lastPushFiles ?? 0,
      canonicalSizeBytes: this.sizes.get(record.name) ?? 0,
    };
  }

  /** Bytes of all canonical copies. */
  totalBytes(): number {
    let total = 0;
    for (const size of this.sizes.values()) total += size;
    return total;
  }

  private async manifestOf(target: SyncTarget): Promise<Manifest> {
    // Canonical copies are svc's own, seeded with hard links of each other: those are accepted.
    return this.swapLock.run(target.service, () => buildManifest(target.canonical, { excludes: target.group.syncExcludes, cache: this.cache, hardlinks: true }));
  }

  /** The quota counts every other copy (or the push in flight for it, when larger) plus this push's result. */
  private checkQuota(service: string, size: number): void {
    const quota = this.options.quotaBytes();
    if (quota <= 0) return;
    let others = 0;
    for (const name of new Set([...this.sizes.keys(), ...this.inFlight.keys()])) {
      if (name !== service) others += Math.max(this.sizes.get(name) ?? 0, this.inFlight.get(name) ?? 0);
    }
    if (others + size > quota) {
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `the state of ${service} (${size} bytes) would bring the canonical copies to ${others + size} bytes, over [cluster] sync_disk_quota_bytes = ${quota}; raise the quota, add excludes ([group.sync] excludes) or remove unused copies under ${this.root}`,
        507,
      );
    }
  }

  private fail(service: string, outcome: PushOutcome, reason: string, actor: Actor): void {
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    this.options.log.warn({ service, reason }, 'state push failed');
    this.options.bus.publish('SYNC_FAILED', { service, reason }, actor);
  }

  private saveHashes(service: string, canonical: string): void {
    try {
      saveHashes(this.root, service, this.cache, canonical);
    } catch (error) {
      this.options.log.warn({ err: error, service }, 'could not save the state-sync hashes; they are recomputed after a restart');
    }
  }

  /** Builds the manifest of every copy of a still-syncing group once (cache hits after a restart), then saves the tables. */
  private async warm(): Promise<void> {
    for (const name of this.sizes.keys()) {
      let target: SyncTarget;
      try {
        target = this.target(name);
      } catch {
        continue; // The group is gone or no longer syncs: nobody will ask.
      }
      await this.manifestOf(target);
      this.saveHashes(name, target.canonical);
    }
  }

  /** Names of the canonical copies on disk. */
  private copies(): string[] {
    return readdirSync(this.root, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && SERVICE_NAME.test(entry.name))
      .map((entry) => entry.name);
  }

  /** Sizes of the canonical copies on disk (every regular file, excluded or not: it is disk usage). */
  private async measureAll(): Promise<void> {
    const breathe = createBreather();
    for (const name of this.copies()) {
      const dir = join(this.root, name);
      let total = 0;
      for (const rel of await listFiles(dir, () => false, breathe)) {
        try {
          total += lstatSync(join(dir, rel)).size;
        } catch {
          // Gone since the listing.
        }
      }
      // A push that committed while this ran already knows the size.
      if (!this.sizes.has(name)) this.sizes.set(name, total);
    }
  }
}

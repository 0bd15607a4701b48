import { ApiError } from '../../errors';
import type { EventBus } from '../../events/bus';
import type { Actor } from '../../events/catalogue';
import type { Logger } from '../../log';
import type { AuditStore } from '../audit/store';
import { UpdateCheck } from '../info/update-check';
import { takeAppliedMarker, writeAppliedMarker } from './applied-marker';
import { appliesAutomatically, type AutoUpdateMode } from './policy';
import type { UpdateStage } from './updater';

export type UpdateJobState = 'idle' | UpdateStage | 'restarting' | 'up-to-date' | 'checked' | 'failed';

/** The last update asked of this controller (GET /api/controller/update). */
export interface UpdateJob {
  state: UpdateJobState;
  action: 'update' | 'rollback' | null;
  dryRun: boolean;
  currentVersion: string;
  targetVersion: string | null;
  error: string | null;
  requestedBy: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface UpdateRequest {
  version?: string;
  dryRun?: boolean;
  rollback?: boolean;
}

export interface SelfUpdatesDeps {
  settings: () => { update_check_url: string; update_public_key: string; auto_update: AutoUpdateMode };
  version: string;
  /** The running executable; null when svc runs from source (nothing to replace). */
  binary: string | null;
  dataDir: string;
  bus: EventBus;
  audit: AuditStore;
  log: Logger;
  /**
   * Called once a new binary is in place: stop serving without stopping a service, then exec
   * the binary (services re-attached by the new process as after a crash).
   */
  restart: (reason: string) => void;
  fetch?: typeof fetch;
}

const BUSY: ReadonlySet<UpdateJobState> = new Set(['checking', 'downloading', 'verifying', 'installing', 'restarting']);
const AUTOMATIC_EVERY_MS = 6 * 3600 * 1000;

/**
 * The controller's self-update: one job at a time, run in the background (the API answers at
 * once), the automatic mode's timer, and the SVC_UPDATE_APPLIED the new process publishes.
 */
export class SelfUpdates {
  readonly check: UpdateCheck;
  private current: UpdateJob;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly deps: SelfUpdatesDeps) {
    this.check = new UpdateCheck({ url: deps.settings().update_check_url, currentVersion: deps.version, bus: deps.bus, log: deps.log.child({ area: 'update-check' }), fetch: deps.fetch });
    this.current = { state: 'idle', action: null, dryRun: false, currentVersion: deps.version, targetVersion: null, error: null, requestedBy: null, startedAt: null, finishedAt: null };
  }

  job(): UpdateJob {
    return { ...this.current };
  }

  /**
   * Starts an update (or a rollback) in the background and returns its job. Refused at once
   * when one is running, when no update feed is configured, or when there is no binary to
   * replace; everything that needs the network is reported through the job.
   */
  request(input: UpdateRequest, actor: Actor): UpdateJob {
    if (BUSY.has(this.current.state)) throw new ApiError('UPDATE_IN_PROGRESS', `an update is already ${this.current.state}${this.current.targetVersion ? ` (to ${this.current.targetVersion})` : ''}; wait for it to end`);
    const binary = this.deps.binary;
    if (!binary) throw new ApiError('UPDATE_NOT_POSSIBLE', 'this controller runs from source under bun, not from the svc binary: update the checkout instead');
    const settings = this.deps.settings();
    if (!input.rollback && !settings.update_check_url) throw new ApiError('UPDATE_NOT_POSSIBLE', 'no release feed: set [controller] update_check_url in svc.toml (a GitHub releases/latest URL) and restart');
    this.current = {
      state: 'checking',
      action: input.rollback ? 'rollback' : 'update',
      dryRun: input.dryRun === true,
      currentVersion: this.deps.version,
      targetVersion: input.version?.replace(/^v/, '') ?? null,
      error: null,
      requestedBy: actor,
      startedAt: new Date().toISOString(),
      finishedAt: null,
    };
    this.deps.audit.record({ actor, action: input.rollback ? 'SVC_ROLLBACK_REQUESTED' : 'SVC_UPDATE_REQUESTED', target: input.rollback ? 'previous' : (input.version ?? 'latest'), details: input.dryRun ? 'dry run' : '' });
    void this.run(binary, input).catch((error: unknown) => this.deps.log.error({ err: error }, 'update job failed unexpectedly'));
    return this.job();
  }

  private async run(binary: string, input: UpdateRequest): Promise<void> {
    const { log } = this.deps;
    const settings = this.deps.settings();
    // The updater (downloads, signature checks, the exec) loads on the first update, not at start.
    let updater: typeof import('./updater') | undefined;
    try {
      updater = await import('./updater');
      const { rollbackBinary, updateBinary, UpdateError } = updater;
      let toVersion: string;
      if (input.rollback) {
        if (input.dryRun) throw new UpdateError('a rollback has no dry run');
        const result = await rollbackBinary({ binary, currentVersion: this.deps.version });
        toVersion = result.toVersion;
      } else {
        const result = await updateBinary(
          { feedUrl: settings.update_check_url, publicKey: settings.update_public_key, currentVersion: this.deps.version, binary, fetch: this.deps.fetch },
          { version: input.version, dryRun: input.dryRun, onStage: (state) => (this.current = { ...this.current, state }) },
        );
        if (result.outcome === 'up-to-date') {
          this.finish({ state: 'up-to-date', targetVersion: result.latestVersion });
          log.info(`svc ${this.deps.version} is up to date (the feed's latest is ${result.latestVersion})`);
          return;
        }
        this.current = { ...this.current, targetVersion: result.toVersion };
        if (result.outcome === 'checked') {
          this.finish({ state: 'checked' });
          log.info(`svc ${result.toVersion} downloaded and checked (dry run: nothing replaced)`);
          return;
        }
        toVersion = result.toVersion;
      }
      this.current = { ...this.current, state: 'restarting', targetVersion: toVersion };
      log.warn(`svc ${toVersion} is installed; restarting in place (services keep running)`);
      writeAppliedMarker(this.deps.dataDir, { oldVersion: this.deps.version, newVersion: toVersion });
      this.deps.restart(`update to ${toVersion}`);
    } catch (error) {
      const message = updater && error instanceof updater.UpdateError ? error.message : `unexpected: ${(error as Error).message}`;
      this.finish({ state: 'failed', error: message });
      log.error(`update failed, the binary is unchanged: ${message}`);
    }
  }

  private finish(change: Partial<UpdateJob>): void {
    this.current = { ...this.current, ...change, finishedAt: new Date().toISOString() };
  }

  /**
   * `[controller] auto_update`: asks the feed now and every 6 hours, and applies what the
   * mode allows (never a major release).
   */
  startAutomatic(): void {
    const mode = this.deps.settings().auto_update;
    if (mode === 'off' || !this.deps.settings().update_check_url) return;
    if (!this.deps.binary) {
      this.deps.log.warn(`[controller] auto_update = "${mode}" is ignored: this controller runs from source, not from the svc binary`);
      return;
    }
    const tick = () => void this.automaticTick(mode);
    tick();
    this.timer = setInterval(tick, AUTOMATIC_EVERY_MS);
    this.timer.unref();
  }

  private async automaticTick(mode: AutoUpdateMode): Promise<void> {
    const status = await this.check.checkNow();
    if (!status.updateAvailable || !status.latestVersion || BUSY.has(this.current.state)) return;
    if (!appliesAutomatically(mode, status.updateType)) {
      this.deps.log.info(`svc ${status.latestVersion} is a ${status.updateType?.toLowerCase()} release: auto_update = "${mode}" leaves it to an operator (svc update)`);
      return;
    }
    this.request({ version: status.latestVersion }, 'system');
  }

  /** The update this process completes, if it was started by one: SVC_UPDATE_APPLIED (audited). */
  announceApplied(): void {
    const applied = takeAppliedMarker(this.deps.dataDir, this.deps.version);
    if (!applied) return;
    this.deps.log.info(`updated: svc ${applied.oldVersion} → ${applied.newVersion}`);
    this.deps.bus.publish('SVC_UPDATE_APPLIED', { oldVersion: applied.oldVersion, newVersion: applied.newVersion });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

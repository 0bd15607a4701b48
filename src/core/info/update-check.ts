import type { EventBus } from '../../events/bus';
import type { Logger } from '../../log';
import { monotonicNow } from '../time/monotonic';

export type UpdateType = 'MAJOR' | 'MINOR' | 'PATCH';

export interface UpdateStatus {
  updateAvailable: boolean;
  latestVersion: string | null;
  updateType: UpdateType | null;
  /** The release page of `latestVersion` (a GitHub release's `html_url`), when the feed names one. */
  releaseUrl: string | null;
}

const UNKNOWN: UpdateStatus = { updateAvailable: false, latestVersion: null, updateType: null, releaseUrl: null };
const CHECK_EVERY_MS = 6 * 3600 * 1000;
const RETRY_AFTER_FAILURE_MS = 10 * 60 * 1000;

/** `0.14.2` / `v0.14.2` → [0, 14, 2]; null when it is not a release version. */
export function parseRelease(text: string): [number, number, number] | null {
  const match = /^v?(\d+)\.(\d+)(?:\.(\d+))?$/.exec(text.trim());
  return match ? [Number(match[1]), Number(match[2]), Number(match[3] ?? 0)] : null;
}

/** How `latest` differs from `current` when it is newer; null when it is not newer. */
export function updateTypeOf(current: string, latest: string): UpdateType | null {
  const a = parseRelease(current);
  const b = parseRelease(latest);
  if (!a || !b) return null;
  for (let i = 0; i < 3; i++) {
    if (b[i]! > a[i]!) return (['MAJOR', 'MINOR', 'PATCH'] as const)[i]!;
    if (b[i]! < a[i]!) return null;
  }
  return null;
}

/**
 * Is there a newer svc? Asked in the background and never awaited by a request: `status()`
 * answers from the last result (unknown until the first one arrives) and starts a check when
 * the last is older than 6 hours (10 minutes after a failure). A newer version found is
 * published once as SVC_UPDATE_AVAILABLE.
 */
export class UpdateCheck {
  private last: UpdateStatus = UNKNOWN;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private retryAt = 0;
  private inflight: Promise<void> | null = null;
  private announced: string | null = null;

  constructor(
    private readonly deps: { url: string; currentVersion: string; bus: EventBus; log: Logger; fetch?: typeof fetch; /** The clock check ages are measured on (monotonic; tests pass a fake). */ now?: () => number },
  ) {}

  status(): UpdateStatus {
    const now = this.deps.now?.() ?? monotonicNow();
    if (this.deps.url && !this.inflight && now >= this.retryAt && now - this.checkedAt >= CHECK_EVERY_MS) this.inflight = this.check().finally(() => (this.inflight = null));
    return this.last;
  }

  /** Asks the feed now (joining a check already running) and answers with its result. */
  async checkNow(): Promise<UpdateStatus> {
    if (this.deps.url) {
      this.inflight ??= this.check().finally(() => (this.inflight = null));
      await this.inflight;
    }
    return this.last;
  }

  /** The check in progress, if any (tests wait on it). */
  settled(): Promise<void> {
    return this.inflight ?? Promise.resolve();
  }

  private async check(): Promise<void> {
    const now = () => this.deps.now?.() ?? monotonicNow();
    try {
      const response = await (this.deps.fetch ?? fetch)(this.deps.url, { headers: { accept: 'application/json', 'user-agent': `svc/${this.deps.currentVersion}` }, signal: AbortSignal.timeout(10_000) });
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
      const body = (await response.json()) as { tag_name?: unknown; version?: unknown; html_url?: unknown; url?: unknown };
      const latest = String(body.tag_name ?? body.version ?? '').replace(/^v/, '');
      if (!parseRelease(latest)) throw new Error(`no release version in the answer (tag_name ${JSON.stringify(body.tag_name)})`);
      const type = updateTypeOf(this.deps.currentVersion, latest);
      this.last = { updateAvailable: type !== null, latestVersion: latest, updateType: type, releaseUrl: webUrl(body.html_url) };
      this.checkedAt = now();
      if (type && this.announced !== latest) {
        this.announced = latest;
        this.deps.log.info({ latest }, `svc ${latest} is available (this is ${this.deps.currentVersion})`);
        this.deps.bus.publish('SVC_UPDATE_AVAILABLE', { currentVersion: this.deps.currentVersion, newVersion: latest, updateType: type });
      }
    } catch (error) {
      this.retryAt = now() + RETRY_AFTER_FAILURE_MS;
      this.deps.log.warn({ url: this.deps.url }, `update check failed: ${(error as Error).message}`);
    }
  }
}

/** An http(s) URL from the feed, else null: the dashboard opens it in a browser, so nothing else passes. */
function webUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

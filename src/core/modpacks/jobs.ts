import { randomBytes } from 'node:crypto';
import { ApiError } from '../../errors';
import { monotonicNow } from '../time/monotonic';

export type JobState = 'running' | 'succeeded' | 'failed';

export interface JobFailure {
  error: string;
  message: string;
  status: number;
}

export interface JobView<R> {
  jobId: string;
  /** What the job makes: a group, a dedicated service, or a pack installed into an existing dedicated directory. */
  target: string;
  name: string;
  state: JobState;
  startedAt: string;
  finishedAt: string | null;
  result: R | null;
  error: JobFailure | null;
}

/** Targets that make a new name: a group and a dedicated service may not share one. */
const NEW_NAMES: ReadonlySet<string> = new Set(['group', 'dedicated']);

interface Job<R> {
  view: JobView<R>;
  done: Promise<void>;
  abort: AbortController;
  /** When it finished on the monotonic clock: how long it has been kept is measured on it. */
  finishedMono: number | null;
}

/**
 * Imports run as jobs, detached from the request that started them: a client that goes away
 * (or times out on a 1 GB pack) does not stop one; it polls the job, or the group list.
 * One job per target and name at a time. Finished jobs are kept for `retentionMs`.
 */
export class ImportJobs<R> {
  private readonly jobs = new Map<string, Job<R>>();

  constructor(
    private readonly retentionMs: number,
    private readonly onUnexpected: (error: unknown, view: JobView<R>) => void,
  ) {}

  /**
   * GROUP_ALREADY_EXISTS / DEDICATED_ALREADY_EXISTS (409) while a job for the same name runs:
   * the same target, or a new group against a new dedicated service (one name, one owner).
   */
  refuseConcurrent(target: string, name: string): void {
    const clashes = (other: string) => other === target || (NEW_NAMES.has(other) && NEW_NAMES.has(target));
    for (const job of this.jobs.values()) {
      if (job.view.state === 'running' && clashes(job.view.target) && job.view.name.toLowerCase() === name.toLowerCase()) {
        const code = target === 'group' ? 'GROUP_ALREADY_EXISTS' : 'DEDICATED_ALREADY_EXISTS';
        throw new ApiError(code, `an import for ${target} ${job.view.name} is already running (job ${job.view.jobId}); wait for it (GET /api/modpacks/jobs/${job.view.jobId})`);
      }
    }
  }

  start(target: string, name: string, run: (job: { jobId: string; signal: AbortSignal }) => Promise<R>): JobView<R> {
    this.prune();
    this.refuseConcurrent(target, name);
    const view: JobView<R> = { jobId: randomBytes(12).toString('hex'), target, name, state: 'running', startedAt: new Date().toISOString(), finishedAt: null, result: null, error: null };
    const abort = new AbortController();
    // Started on the next turn, so the job is registered (and visible) before any of it runs.
    const done = Promise.resolve()
      .then(() => run({ jobId: view.jobId, signal: abort.signal }))
      .then(
      (result) => {
        view.result = result;
        view.state = 'succeeded';
      },
      (error: unknown) => {
        view.state = 'failed';
        if (error instanceof ApiError) view.error = { error: error.errorCode, message: error.message, status: error.status };
        else {
          view.error = { error: 'INTERNAL_ERROR', message: 'the import failed unexpectedly; the controller log has the details', status: 500 };
          this.onUnexpected(error, view);
        }
      },
    );
    const job: Job<R> = { view, done: Promise.resolve(), abort, finishedMono: null };
    job.done = done.then(() => {
      view.finishedAt = new Date().toISOString();
      job.finishedMono = monotonicNow();
    });
    this.jobs.set(view.jobId, job);
    return view;
  }

  get(id: string): JobView<R> | undefined {
    return this.jobs.get(id)?.view;
  }

  /**
   * Waits up to `withinMs` for a job: its result when it succeeded, its error thrown when it
   * failed, null when it is still running.
   */
  async settle(id: string, withinMs: number): Promise<R | null> {
    const job = this.jobs.get(id);
    if (!job) throw new ApiError('MODPACK_NOT_FOUND', `no import job ${id}`);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([job.done, new Promise<void>((resolve) => (timer = setTimeout(resolve, withinMs)))]);
    clearTimeout(timer);
    const { view } = job;
    if (view.state === 'succeeded') return view.result;
    if (view.state === 'failed') throw new ApiError(view.error!.error, view.error!.message, view.error!.status);
    return null;
  }

  /** Aborts every running job and waits (bounded) for them to clean up. */
  async stop(graceMs: number): Promise<void> {
    const running = [...this.jobs.values()].filter((j) => j.view.state === 'running');
    for (const job of running) job.abort.abort(new ApiError('MODPACK_UPLOAD_FAILED', 'the controller is stopping', 503));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all(running.map((j) => j.done)), new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }

  private prune(): void {
    const cutoff = monotonicNow() - this.retentionMs;
    for (const [id, job] of this.jobs) if (job.finishedMono !== null && job.finishedMono < cutoff) this.jobs.delete(id);
  }
}

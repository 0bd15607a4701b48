/**
 * Carries out group actions (plan.ts) on the controller, one at a time per group, whatever
 * the caller does meanwhile (the browser may close: the action goes on). Each step waits for
 * what it started to be READY before the next; a step that fails ends the run there, the rest
 * skipped, and says why. The last run of each group is kept for GET /api/groups/{name}/actions.
 */
import { ApiError } from '../../../errors';
import type { EventBus } from '../../../events/bus';
import type { Actor } from '../../../events/catalogue';
import type { Logger } from '../../../log';
import type { ServiceManager } from '../../services/manager';
import type { ServiceRegistry } from '../../services/registry';
import type { GroupStore } from '../store';
import { planGroupAction, type GroupActionPlan, type GroupActionRequest, type PlanStep } from './plan';

export type StepStatus = 'pending' | 'running' | 'done' | 'failed' | 'skipped';

export interface RunStep extends PlanStep {
  status: StepStatus;
  /** What happened: the new instance's name, or why it failed. */
  outcome: string;
}

export interface GroupActionRun {
  group: string;
  action: GroupActionPlan['action'];
  actor: string;
  startedAt: string;
  finishedAt: string | null;
  status: 'running' | 'done' | 'failed';
  steps: RunStep[];
  warnings: string[];
}

export interface GroupActionsDeps {
  manager: Pick<ServiceManager, 'start' | 'restart' | 'stop'>;
  registry: Pick<ServiceRegistry, 'ofGroup' | 'get'>;
  groups: Pick<GroupStore, 'require'>;
  bus: EventBus;
  log: Logger;
  /** Waits between steps (tests pass a fast one). */
  sleep?: (ms: number) => Promise<void>;
}

/** A started instance not READY in this long is a failed step (the process watch usually says so first). */
const READY_WAIT_MS = 15 * 60_000;

export class GroupActions {
  private readonly runs = new Map<string, GroupActionRun>();

  constructor(private readonly deps: GroupActionsDeps) {}

  /** The plan for `request` as the group stands now (the dry run). */
  plan(groupName: string, request: GroupActionRequest): GroupActionPlan {
    const group = this.deps.groups.require(groupName);
    const instances = this.deps.registry.ofGroup(group.name).filter((s) => !s.pooled);
    return planGroupAction(group, instances, request);
  }

  /** The running or last run of the group; null when none since the controller started. */
  last(groupName: string): GroupActionRun | null {
    return this.runs.get(groupName) ?? null;
  }

  /**
   * Plans and starts the action; answers at once with the run (its steps pending). Refused
   * while another action of the group runs, and when the plan refuses.
   */
  begin(groupName: string, request: GroupActionRequest, actor: Actor): GroupActionRun {
    const group = this.deps.groups.require(groupName).name;
    if (this.runs.get(group)?.status === 'running') throw new ApiError('GROUP_ACTION_IN_PROGRESS', `an action of group ${group} is still running; wait for it to end (GET /api/groups/${group}/actions)`);
    const plan = this.plan(group, request);
    if (plan.refusal) throw new ApiError('VALIDATION_FAILED', plan.refusal);
    const run: GroupActionRun = {
      group,
      action: plan.action,
      actor,
      startedAt: new Date().toISOString(),
      finishedAt: null,
      status: 'running',
      steps: plan.steps.map((s) => ({ ...s, status: 'pending' as const, outcome: '' })),
      warnings: plan.warnings,
    };
    this.runs.set(group, run);
    void this.carryOut(run, request, actor);
    return run;
  }

  private async carryOut(run: GroupActionRun, request: GroupActionRequest, actor: Actor): Promise<void> {
    const sleep = this.deps.sleep ?? ((ms: number) => Bun.sleep(ms));
    for (const step of run.steps) {
      if (run.status !== 'running') {
        step.status = 'skipped';
        continue;
      }
      try {
        if (step.waitSeconds > 0) await sleep(step.waitSeconds * 1000);
        step.status = 'running';
        step.outcome = await this.step(run.group, step, request, actor);
        step.status = 'done';
      } catch (error) {
        step.status = 'failed';
        step.outcome = (error as Error).message;
        run.status = 'failed';
        this.deps.log.warn({ group: run.group, action: run.action, service: step.service, err: error }, 'a group action step failed; the rest are skipped');
      }
    }
    if (run.status === 'running') run.status = 'done';
    run.finishedAt = new Date().toISOString();
  }

  private async step(group: string, step: PlanStep, request: GroupActionRequest, actor: Actor): Promise<string> {
    const { manager } = this.deps;
    switch (step.does) {
      case 'start': {
        const started = await this.startReady(() => manager.start(group, actor));
        return `${started} READY`;
      }
      case 'restart': {
        const started = await this.startReady(() => manager.restart(step.service!, actor));
        return started === step.service ? `${started} READY again` : `${started} READY in place of ${step.service}`;
      }
      case 'surge': {
        const started = await this.startReady(() => manager.start(group, actor));
        await manager.stop(step.service!, actor, { drain: true });
        return `${started} READY, then ${step.service} stopped`;
      }
      case 'stop':
        await manager.stop(step.service!, actor, { drain: request.drain !== false });
        return `${step.service} stopped`;
    }
  }

  /** Runs `start` and waits for the instance it names to be READY; its name. */
  private async startReady(start: () => Promise<{ name: string }>): Promise<string> {
    // Every READY or end heard from now on, so one that comes before `start` answers is not missed.
    const heard = new Map<string, string>();
    let wake: (() => void) | undefined;
    const stop = this.deps.bus.subscribe((event) => {
      if (event.type !== 'SERVICE_READY' && event.type !== 'SERVICE_CRASHED' && event.type !== 'SERVICE_STOPPED') return;
      heard.set(event.data.service ?? '', event.type);
      wake?.();
    });
    try {
      const { name } = await start();
      // A restart's own stop half ended the old process under this name: only a READY counts from before.
      if (heard.get(name) !== 'SERVICE_READY') heard.delete(name);
      const deadline = performance.now() + READY_WAIT_MS;
      for (;;) {
        const outcome = heard.get(name) ?? (this.deps.registry.get(name)?.state === 'READY' ? 'SERVICE_READY' : undefined);
        if (outcome === 'SERVICE_READY') return name;
        if (outcome !== undefined) throw new Error(`${name} ${outcome === 'SERVICE_CRASHED' ? 'crashed' : 'stopped'} before it was READY${this.diagnosisOf(name)}`);
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`${name} was not READY within ${READY_WAIT_MS / 60_000} minutes`);
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, Math.min(left, 1000));
        });
      }
    } finally {
      stop();
    }
  }

  private diagnosisOf(name: string): string {
    const diagnosis = this.deps.registry.get(name)?.diagnosis;
    return diagnosis ? `: ${diagnosis}` : '';
  }
}

/** A group's page: what it reads of the API (GET /api/groups/{name}, /api/services?group=, the group actions). */
export type ActionKind = 'start' | 'restart' | 'stop';

export interface PlanStep {
  service: string | null;
  does: 'start' | 'restart' | 'surge' | 'stop';
  waitSeconds: number;
}

export interface ActionPlan {
  group: string;
  action: ActionKind;
  steps: PlanStep[];
  warnings: string[];
  refusal?: string;
}

export interface RunStep extends PlanStep {
  status: 'pending' | 'running' | 'done' | 'failed' | 'skipped';
  outcome: string;
}

export interface ActionRun {
  group: string;
  action: ActionKind;
  actor: string;
  startedAt: string;
  finishedAt: string | null;
  status: 'running' | 'done' | 'failed';
  steps: RunStep[];
  warnings: string[];
}

export interface GroupFacts {
  name: string;
  software: string;
  version: string;
  type: string;
  minInstances: number;
  maxInstances: number;
  activeInstances: number;
  memory: string;
}

export interface Instance {
  name: string;
  state: string;
  playerCount: number;
  nodeId: string;
}

export interface ActionOptions {
  count: number;
  staggerSeconds: number;
  drain: boolean;
}

export const groupPath = (name: string, rest = '') => `/api/groups/${encodeURIComponent(name)}${rest}`;
export const runKey = (name: string) => ['group', name, 'action'] as const;
export const instancesKey = (name: string) => ['group', name, 'instances'] as const;

/** The body an action sends (its dry run with dryRun). */
export function actionBody(action: ActionKind, options: ActionOptions, dryRun: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { dryRun };
  if (action === 'start') body.count = options.count;
  if (action === 'restart') body.staggerSeconds = options.staggerSeconds;
  if (action === 'stop') body.drain = options.drain;
  return body;
}

/** A step in words. */
export function stepWords(step: PlanStep): string {
  const wait = step.waitSeconds > 0 ? `after ${step.waitSeconds} s, ` : '';
  switch (step.does) {
    case 'start':
      return `${wait}start a new instance and wait until it is READY`;
    case 'restart':
      return `${wait}restart ${step.service} and wait until it is READY again`;
    case 'surge':
      return `${wait}start a new instance, and once it is READY stop ${step.service}`;
    case 'stop':
      return `${wait}stop ${step.service}`;
  }
}

export const ACTION_WORDS: Record<ActionKind, string> = { start: 'Start', restart: 'Rolling restart', stop: 'Stop all' };

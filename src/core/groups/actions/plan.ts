/**
 * What a group action will do, pure (table-tested): start N instances, restart every READY one
 * in turn (rolling, a stagger apart, never dropping the group below its minimum READY), or stop
 * every one (drained first). The plan is what the dry run answers and what the runner carries
 * out step by step; a plan that cannot be carried out says why in `refusal` instead.
 */
import { ACTIVE_STATES, type ServiceState } from '../../services/lifecycle';

export type GroupActionKind = 'start' | 'restart' | 'stop';

export interface GroupActionRequest {
  action: GroupActionKind;
  /** start: how many new instances (1..). */
  count?: number;
  /** restart: seconds between one instance's READY and the next one's restart. */
  staggerSeconds?: number;
  /** stop: drain players away first (default true). */
  drain?: boolean;
}

/**
 * One step. `restart`: stop the instance and start it again (the group stays at or above its
 * minimum READY meanwhile). `surge`: the group would drop below its minimum, so a new instance
 * starts first and, once READY, the old one stops. `start`: a new instance. `stop`: the instance.
 */
export interface PlanStep {
  /** The instance the step is about; null for a new instance. */
  service: string | null;
  does: 'start' | 'restart' | 'surge' | 'stop';
  /** Seconds to wait before the step (the stagger). */
  waitSeconds: number;
}

export interface GroupActionPlan {
  group: string;
  action: GroupActionKind;
  steps: PlanStep[];
  /** What the operator should know before confirming. */
  warnings: string[];
  /** Set when the action cannot be carried out; the steps are then empty. */
  refusal?: string;
}

export interface PlanGroup {
  name: string;
  minInstances: number;
  maxInstances: number;
}

export interface PlanInstance {
  name: string;
  state: ServiceState;
}

export function planGroupAction(group: PlanGroup, instances: readonly PlanInstance[], request: GroupActionRequest): GroupActionPlan {
  const active = [...instances].filter((s) => ACTIVE_STATES.has(s.state)).sort(byName);
  const plan: GroupActionPlan = { group: group.name, action: request.action, steps: [], warnings: [] };
  const refuse = (why: string): GroupActionPlan => ({ ...plan, steps: [], refusal: why });
  switch (request.action) {
    case 'start': {
      const count = request.count ?? 1;
      const room = group.maxInstances - active.length;
      if (room <= 0) return refuse(`group ${group.name} runs ${active.length} of its maximum of ${group.maxInstances} instance(s): there is no room for another`);
      if (count > room) return refuse(`group ${group.name} runs ${active.length} of its maximum of ${group.maxInstances} instance(s): there is room for ${room}, not ${count}`);
      for (let i = 0; i < count; i++) plan.steps.push({ service: null, does: 'start', waitSeconds: 0 });
      return plan;
    }
    case 'restart': {
      const ready = active.filter((s) => s.state === 'READY');
      for (const s of active) if (s.state !== 'READY') plan.warnings.push(`${s.name} is ${s.state}: left alone`);
      if (ready.length === 0) return refuse(`group ${group.name} has no READY instance to restart`);
      // A restart takes one READY instance away for a while: allowed while the rest hold the minimum.
      const mayDropOne = ready.length - 1 >= group.minInstances;
      const maySurge = active.length < group.maxInstances;
      if (!mayDropOne && !maySurge) {
        return refuse(`group ${group.name} runs ${active.length} instance(s), its minimum (${group.minInstances} READY) and its maximum (${group.maxInstances}) at once: a rolling restart cannot keep ${group.minInstances} READY; raise its maximum by one`);
      }
      const stagger = Math.max(0, request.staggerSeconds ?? 0);
      ready.forEach((s, i) => plan.steps.push({ service: s.name, does: mayDropOne ? 'restart' : 'surge', waitSeconds: i === 0 ? 0 : stagger }));
      if (!mayDropOne) plan.warnings.push(`the group runs at its minimum of ${group.minInstances} READY: each instance is replaced by a new one, started first, before it stops`);
      return plan;
    }
    case 'stop': {
      if (active.length === 0) return refuse(`group ${group.name} has no instance running`);
      for (const s of active) plan.steps.push({ service: s.name, does: 'stop', waitSeconds: 0 });
      if (request.drain === false) plan.warnings.push('not drained: players on them are disconnected');
      if (group.minInstances > 0) plan.warnings.push(`the group's minimum is ${group.minInstances}: the autoscaler starts that many again; set its minimum to 0 to keep it stopped`);
      return plan;
    }
  }
}

function byName(a: PlanInstance, b: PlanInstance): number {
  return a.name.localeCompare(b.name, undefined, { numeric: true });
}

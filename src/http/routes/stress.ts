import { Type } from '@sinclair/typebox';
import type { Kernel } from '../../kernel';
import { GROUP_NAME } from '../../core/groups/model';
import { STRESS_MAX_PLAYERS, STRESS_MAX_RAMP_SECONDS, StressStatusSchema, type StressStatus } from '../../core/stress/model';
import { targetText } from '../../core/stress/stress-test';
import { ApiError } from '../../errors';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

const Players = Type.Integer({ minimum: 0, maximum: STRESS_MAX_PLAYERS, description: 'simulated players to reach' });
const Seconds = (description: string) => Type.Integer({ minimum: 0, maximum: STRESS_MAX_RAMP_SECONDS, description });
const Mutation = Type.Object({ success: Type.Literal(true), message: Type.String(), stress: StressStatusSchema });
/** The spec's 5/min on every stress mutation, per client IP. */
const STRESS_RATE_LIMIT = { max: 5, windowMs: 60_000 };
const GROUP_PATTERN = new RegExp(GROUP_NAME);

/**
 * The group a start names: absent, null, empty or blank (the dashboard's "All groups" item
 * sends a single space) mean every backend group.
 */
function targetGroup(group: string | null | undefined): string | null {
  if (group == null || group.trim() === '') return null;
  if (!GROUP_PATTERN.test(group)) throw new ApiError('VALIDATION_FAILED', `body "group" must be a group name matching ${GROUP_NAME}, or empty/null for every backend group; got ${JSON.stringify(group)}`);
  return group;
}

export function stressRoutes(kernel: Kernel): AnyRoute[] {
  const { stress } = kernel;
  const answer = (message: string, status: StressStatus) => ({ success: true as const, message, stress: status });

  return [
    defineRoute({
      method: 'GET',
      path: '/api/stress',
      auth: 'admin',
      permission: 'svc.dashboard.stress.view',
      tag: 'stress',
      summary: 'The running stress test: simulated players per backend, capacity, overflow, what the proxies would carry',
      response: { 200: StressStatusSchema },
      handler: () => stress.status(),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/stress/start',
      auth: 'admin',
      permission: 'svc.dashboard.stress.manage',
      tag: 'stress',
      summary: 'Simulate players on a backend group (or every backend group), ramping from 0 over rampSeconds; scaling pauses meanwhile (5/min)',
      body: Type.Object({
        players: Players,
        group: Type.Optional(Type.Union([Type.String({ maxLength: 64, description: 'a backend group; absent, null or blank = every backend group' }), Type.Null()])),
        rampSeconds: Type.Optional(Seconds('seconds to reach players; 0 (default) = at once')),
      }),
      response: { 200: Mutation, 400: ErrorBodySchema, 404: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      rateLimit: STRESS_RATE_LIMIT,
      handler: ({ body, actor }) => {
        const group = targetGroup(body.group);
        const rampSeconds = body.rampSeconds ?? 0;
        const status = stress.start({ players: body.players, group, rampSeconds }, actor);
        return answer(`stress test on ${targetText(group)} started: ${body.players} players over ${rampSeconds} s`, status);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/stress/stop',
      auth: 'admin',
      permission: 'svc.dashboard.stress.manage',
      tag: 'stress',
      summary: 'Stop the running stress test; the simulated players are gone at once (5/min)',
      response: { 200: Mutation, 409: ErrorBodySchema, 429: ErrorBodySchema },
      rateLimit: STRESS_RATE_LIMIT,
      handler: ({ actor }) => {
        const { active, group } = stress.status();
        const stopped = stress.stop(actor);
        return answer(`stress test on ${active ? targetText(group) : 'nothing'} stopped`, stopped);
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/stress/ramp',
      auth: 'admin',
      permission: 'svc.dashboard.stress.manage',
      tag: 'stress',
      summary: 'Move the running stress test from its current count to players over durationSeconds (5/min)',
      body: Type.Object({
        players: Players,
        durationSeconds: Seconds('seconds to reach players; 0 = at once'),
      }),
      response: { 200: Mutation, 400: ErrorBodySchema, 409: ErrorBodySchema, 429: ErrorBodySchema },
      rateLimit: STRESS_RATE_LIMIT,
      handler: ({ body, actor }) => {
        const status = stress.ramp(body, actor);
        return answer(`stress test ramping to ${body.players} players over ${body.durationSeconds} s`, status);
      },
    }),
  ];
}

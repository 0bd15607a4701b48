import { t } from '../t';
import type { Kernel } from '../../kernel';
import { GroupActions } from '../../core/groups/actions/runner';
import type { GroupActionRequest } from '../../core/groups/actions/plan';
import { defineRoute, type AnyRoute } from '../route';

const Name = t.Object({ name: t.String({ minLength: 1, maxLength: 64 }) });

const ActionBody = t.Object({
  action: t.Union([t.Literal('start'), t.Literal('restart'), t.Literal('stop')], { description: 'start N instances, restart every READY one in turn (rolling), or stop every one' }),
  count: t.Optional(t.Integer({ minimum: 1, maximum: 1000, description: 'start: how many new instances; default 1' })),
  staggerSeconds: t.Optional(t.Integer({ minimum: 0, maximum: 3600, description: 'restart: seconds between one instance READY and the next restart; default 0' })),
  drain: t.Optional(t.Boolean({ description: 'stop: send players away first; default true' })),
  dryRun: t.Optional(t.Boolean({ description: 'answer the plan and do nothing; default false' })),
});

const Step = t.Object({
  service: t.Union([t.String(), t.Null()], { description: 'null: a new instance' }),
  does: t.Union([t.Literal('start'), t.Literal('restart'), t.Literal('surge'), t.Literal('stop')], { description: 'surge: a new instance started first, then this one stopped (the group would drop below its minimum otherwise)' }),
  waitSeconds: t.Integer(),
});
const Plan = t.Object({
  group: t.String(),
  action: t.String(),
  steps: t.Array(Step),
  warnings: t.Array(t.String()),
  refusal: t.Optional(t.String({ description: 'why it cannot be carried out' })),
});
const Run = t.Object({
  group: t.String(),
  action: t.String(),
  actor: t.String(),
  startedAt: t.String(),
  finishedAt: t.Union([t.String(), t.Null()]),
  status: t.Union([t.Literal('running'), t.Literal('done'), t.Literal('failed')]),
  steps: t.Array(t.Object({ ...Step.properties, status: t.Union([t.Literal('pending'), t.Literal('running'), t.Literal('done'), t.Literal('failed'), t.Literal('skipped')]), outcome: t.String() })),
  warnings: t.Array(t.String()),
});

/**
 * Group actions (svc): start N instances, a rolling restart that keeps the group's minimum
 * READY, stop every instance. A dry run answers the plan; otherwise the action runs on the
 * controller (202) and its progress is read back. A session needs the node of what the action
 * does to each instance (start, restart, stop), as the per-service routes ask.
 */
export function groupActionRoutes(kernel: Kernel): AnyRoute[] {
  const actions = new GroupActions({ manager: kernel.manager, registry: kernel.services, groups: kernel.groups, bus: kernel.bus, log: kernel.log.child({ area: 'group-actions' }) });
  const node = { start: 'svc.dashboard.services.start', restart: 'svc.dashboard.services.restart', stop: 'svc.dashboard.services.stop' } as const;
  const run = (action: GroupActionRequest['action']) =>
    defineRoute({
      method: 'POST',
      path: `/api/groups/:name/actions/${action}`,
      auth: 'service',
      permission: node[action],
      tag: 'groups',
      summary: {
        start: 'Start N new instances of the group (a dry run first lists them)',
        restart: 'Restart every READY instance in turn, a stagger apart, keeping the group’s minimum READY (a new one started first when it runs at its minimum)',
        stop: 'Stop every instance of the group, drained first',
      }[action],
      params: Name,
      body: t.Optional(t.Omit(ActionBody, ['action'])),
      response: { 200: t.Object({ plan: Plan }), 202: t.Object({ run: Run }) },
      handler: ({ params, body, actor, set }) => {
        const request: GroupActionRequest = { action, count: body?.count, staggerSeconds: body?.staggerSeconds, drain: body?.drain };
        if (body?.dryRun) return { plan: actions.plan(params.name, request) };
        set.status = 202;
        return { run: actions.begin(params.name, request, actor) };
      },
    });
  return [
    run('start'),
    run('restart'),
    run('stop'),
    defineRoute({
      method: 'GET',
      path: '/api/groups/:name/actions',
      auth: 'service',
      permission: 'svc.dashboard.groups.view',
      tag: 'groups',
      summary: 'The group action running now, or the last one since the controller started (null: none)',
      params: Name,
      response: { 200: t.Object({ run: t.Union([Run, t.Null()]) }) },
      handler: ({ params }) => {
        kernel.groups.require(params.name);
        return { run: actions.last(kernel.groups.require(params.name).name) };
      },
    }),
  ];
}

import { t } from '../t';
import type { Kernel } from '../../kernel';
import { DedicatedSchema } from '../../core/dedicated/model';
import { GroupSchema } from '../../core/groups/model';
import { groupQuarantine, GroupQuarantineSchema } from '../../core/groups/view';
import type { QuarantineRecord } from '../../core/services/quarantine';
import { ApiError } from '../../errors';
import type { Actor } from '../../events/catalogue';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

const Lifted = t.Object({
  success: t.Literal(true),
  message: t.String(),
  lifted: t.Boolean({ description: 'false when it was not quarantined (nothing changed)' }),
  quarantine: t.Union([GroupQuarantineSchema, t.Null()], { description: 'the quarantine that was lifted' }),
});
const Err = ErrorBodySchema;

/**
 * Lifting the crash-loop breaker's quarantine (svc). Admin: a lift starts a group that was
 * crashing again (the refill, scaling and the warm pool take it up at once), which a game
 * server's credential or the shared service token must never do; a dashboard session needs the
 * node that edits the group (or manages the dedicated service). Audited with who lifted it
 * (GROUP_QUARANTINE_LIFTED).
 */
export function quarantineRoutes(kernel: Kernel): AnyRoute[] {
  const { manager } = kernel;

  const lift = (kind: QuarantineRecord['kind'], name: string, actor: Actor) => {
    const what = kind === 'group' ? `group ${name}` : `dedicated service ${name}`;
    const held = manager.quarantineOf(name);
    const lifted = held?.kind === kind ? manager.liftQuarantine(name, actor) : undefined;
    if (!lifted) return { success: true as const, message: `${what} is not quarantined`, lifted: false, quarantine: null };
    const next = kind === 'group' ? 'the minInstances refill, scaling and the warm pool start it again' : 'start it when you are ready';
    return { success: true as const, message: `the quarantine of ${what} (since ${lifted.since}: ${lifted.reason}) is lifted; ${next}`, lifted: true, quarantine: groupQuarantine(lifted) };
  };

  return [
    defineRoute({
      method: 'DELETE',
      path: '/api/groups/:name/quarantine',
      auth: 'admin',
      permission: 'svc.dashboard.groups.edit',
      tag: 'groups',
      summary: 'Lift the quarantine the crash-loop breaker put on a group; the group starts again (refill, scaling, warm pool, starts)',
      params: t.Object({ name: t.String({ pattern: GroupSchema.properties.name.pattern }) }),
      response: { 200: Lifted, 400: Err, 404: Err },
      handler: ({ params, actor }) => {
        // A quarantine outlives its group's file: it can be lifted after the group is gone.
        if (!kernel.groups.get(params.name) && manager.quarantineOf(params.name)?.kind !== 'group') throw new ApiError('GROUP_NOT_FOUND', `group "${params.name}" does not exist`);
        return lift('group', params.name, actor);
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/api/dedicated/:name/quarantine',
      auth: 'admin',
      permission: 'svc.dashboard.dedicated.manage',
      tag: 'dedicated',
      summary: 'Lift the quarantine the crash-loop breaker put on a dedicated service; it may be started again',
      params: t.Object({ name: t.String({ pattern: DedicatedSchema.properties.name.pattern }) }),
      response: { 200: Lifted, 400: Err, 404: Err },
      handler: ({ params, actor }) => {
        if (!kernel.dedicated.get(params.name) && manager.quarantineOf(params.name)?.kind !== 'dedicated') throw new ApiError('DEDICATED_NOT_FOUND', `dedicated service "${params.name}" does not exist`);
        return lift('dedicated', params.name, actor);
      },
    }),
  ];
}

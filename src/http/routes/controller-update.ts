import { t } from '../t';
import type { Kernel } from '../../kernel';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';
import { ApiError } from '../../errors';
import { holdsAdmin } from '../../core/auth';

const UpdateJobSchema = t.Object({
  state: t.Union(
    ['idle', 'checking', 'downloading', 'verifying', 'installing', 'restarting', 'up-to-date', 'checked', 'failed'].map((s) => t.Literal(s)),
    { description: 'restarting: the new binary is in place and the controller is handing over to it (services keep running)' },
  ),
  action: t.Union([t.Literal('update'), t.Literal('rollback'), t.Null()]),
  dryRun: t.Boolean(),
  currentVersion: t.String(),
  targetVersion: t.Union([t.String(), t.Null()]),
  error: t.Union([t.String(), t.Null()], { description: 'why a failed update was refused; the binary is then unchanged' }),
  requestedBy: t.Union([t.String(), t.Null()]),
  startedAt: t.Union([t.String(), t.Null()]),
  finishedAt: t.Union([t.String(), t.Null()]),
});

const UpdateRequestSchema = t.Object(
  {
    version: t.Optional(t.String({ pattern: '^v?\\d+\\.\\d+(\\.\\d+)?$', description: 'a release other than the latest, e.g. 0.15.1 (may be older: a downgrade)' })),
    dryRun: t.Optional(t.Boolean({ description: 'download and check everything, replace nothing' })),
    rollback: t.Optional(t.Boolean({ description: 'go back to the binary the last update replaced' })),
  },
  { additionalProperties: false },
);

/** Self-update for the dashboard and `svc update`: start a job, then read how it went. */
export function controllerUpdateRoutes(kernel: Kernel): AnyRoute[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/controller/update',
      auth: 'admin',
      permission: 'svc.dashboard.update',
      tag: 'system',
      summary: 'Update the svc binary in the background (202 at once); the controller then restarts in place and every service keeps running',
      body: UpdateRequestSchema,
      response: { 202: UpdateJobSchema, 400: ErrorBodySchema, 401: ErrorBodySchema, 403: ErrorBodySchema, 409: ErrorBodySchema },
      handler: ({ body, actor, set, principal }) => {
        // An older release brings back what it had not fixed yet: choosing the release (a
        // version, which may be a downgrade, or a rollback) is the operator's. The update node
        // alone takes the latest release.
        if (!holdsAdmin(principal) && (body.version !== undefined || body.rollback === true)) {
          throw new ApiError('FORBIDDEN', `choosing the release (${body.rollback ? '"rollback"' : '"version"'}) needs an admin token or an admin dashboard session; svc.dashboard.update alone updates to the latest release (leave it out)`);
        }
        const job = kernel.updates.request(body, actor);
        set.status = 202;
        return job;
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/controller/update',
      auth: 'admin',
      permission: 'svc.dashboard.update',
      tag: 'system',
      summary: 'The last update job: its stage, target and, when it failed, why',
      response: { 200: UpdateJobSchema, 401: ErrorBodySchema, 403: ErrorBodySchema },
      handler: () => kernel.updates.job(),
    }),
  ];
}

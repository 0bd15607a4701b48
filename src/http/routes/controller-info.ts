import { t } from 'elysia';
import changelogText from '../../../CHANGELOG.md' with { type: 'text' };
import type { Kernel } from '../../kernel';
import { parseChangelog, type ChangelogEntry } from '../../core/info/changelog';
import { SystemFactsSchema, SystemSampler } from '../../core/info/system-facts';
import { UpdateCheck } from '../../core/info/update-check';
import { ACTIVE_STATES } from '../../core/services/lifecycle';
import { LOCAL_NODE } from '../../core/services/registry';
import { memoryUsedMb } from '../../core/services/view';
import { parseMemory } from '../../core/software/memory';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

const InfoSchema = t.Object({
  version: t.String(),
  startedAt: t.String(),
  uptimeSeconds: t.Integer(),
  runtimeMemoryUsedMb: t.Integer({ description: 'resident memory of the controller process' }),
  servicesMaxMemoryMb: t.Integer({ description: '[controller] max_memory' }),
  servicesUsedMemoryMb: t.Integer({ description: 'resident memory of the services on this machine' }),
  runningServices: t.Integer(),
  system: SystemFactsSchema,
  updateAvailable: t.Boolean(),
  latestVersion: t.Union([t.String(), t.Null()], { description: 'null until an update check answered (or none is configured)' }),
  updateType: t.Union([t.Literal('MAJOR'), t.Literal('MINOR'), t.Literal('PATCH'), t.Null()]),
});

const ChangelogSchema = t.Object({ entries: t.Array(t.Object({ version: t.String(), title: t.String(), body: t.String() })) });
const CHANGELOG_CACHE_MS = 5 * 60 * 1000;

export function controllerInfoRoutes(kernel: Kernel): AnyRoute[] {
  const sampler = new SystemSampler();
  const updates = new UpdateCheck({ url: kernel.config.controller.update_check_url, currentVersion: kernel.version, bus: kernel.bus, log: kernel.log.child({ area: 'update-check' }) });
  // The changelog is embedded in the binary; parsed at most every 5 minutes (the spec's cache).
  let changelog: { entries: ChangelogEntry[]; at: number } | null = null;

  return [
    defineRoute({
      method: 'GET',
      path: '/api/controller/info',
      auth: 'service',
      tag: 'system',
      summary: 'Runtime stats, system facts and the last update check (never waited for: cached or unknown)',
      response: { 200: InfoSchema, 401: ErrorBodySchema, 403: ErrorBodySchema },
      handler: () => {
        const local = kernel.services.all().filter((s) => s.nodeId === LOCAL_NODE && ACTIVE_STATES.has(s.state));
        return {
          version: kernel.version,
          startedAt: kernel.startedAt.toISOString(),
          uptimeSeconds: Math.floor((Date.now() - kernel.startedAt.getTime()) / 1000),
          runtimeMemoryUsedMb: Math.round(process.memoryUsage.rss() / 1048576),
          servicesMaxMemoryMb: parseMemory(kernel.config.controller.max_memory),
          servicesUsedMemoryMb: local.reduce((sum, s) => sum + memoryUsedMb(s), 0),
          runningServices: kernel.services.all().filter((s) => ACTIVE_STATES.has(s.state) && !s.pooled).length,
          system: sampler.read(),
          ...updates.status(),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/controller/changelog',
      auth: 'service',
      tag: 'system',
      summary: 'The release notes of this build, newest first',
      response: { 200: ChangelogSchema, 401: ErrorBodySchema, 403: ErrorBodySchema },
      handler: () => {
        if (!changelog || Date.now() - changelog.at > CHANGELOG_CACHE_MS) changelog = { entries: parseChangelog(changelogText), at: Date.now() };
        return { entries: changelog.entries };
      },
    }),
  ];
}

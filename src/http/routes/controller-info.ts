import { t } from '../t';
import changelogText from '../../../CHANGELOG.md' with { type: 'text' };
import type { Kernel } from '../../kernel';
import { parseChangelog, type ChangelogEntry } from '../../core/info/changelog';
import { runtimeMemory } from '../../core/info/runtime-memory';
import { SystemInfoSchema, SystemSampler, withRuntimeAliases } from '../../core/info/system-facts';
import { ACTIVE_STATES } from '../../core/services/lifecycle';
import { LOCAL_NODE } from '../../core/services/registry';
import { machineUsage } from '../../core/scaling/placement';
import { memoryUsedMb } from '../../core/services/view';
import { parseMemory } from '../../core/software/memory';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';
import { monotonicNow, secondsSinceMono } from '../../core/time/monotonic';

const InfoSchema = t.Object({
  version: t.String(),
  startedAt: t.String(),
  uptimeSeconds: t.Integer(),
  runtimeMemoryUsedMb: t.Integer({ description: 'resident memory of the controller process' }),
  // The dashboard reads the reference's JVM names; a Bun controller fills them with its own figures.
  jvmMemoryUsedMb: t.Integer({ description: 'resident memory of the controller process (same as runtimeMemoryUsedMb)' }),
  jvmMemoryMaxMb: t.Integer({ description: 'what the controller may grow to: its cgroup memory limit, else the machine memory (Bun has no -Xmx)' }),
  jvmMemoryAllocatedMb: t.Integer({ description: 'JavaScript heap committed by the runtime' }),
  servicesMaxMemoryMb: t.Integer({ description: '[controller] max_memory' }),
  servicesAllocatedMemoryMb: t.Integer({ description: 'memory the services on this machine are budgeted (heap plus JVM overhead each, warm pool included): what max_memory is checked against' }),
  servicesUsedMemoryMb: t.Integer({ description: 'resident memory of the services on this machine' }),
  runningServices: t.Integer(),
  system: SystemInfoSchema,
  updateAvailable: t.Boolean(),
  latestVersion: t.Union([t.String(), t.Null()], { description: 'null until an update check answered (or none is configured)' }),
  updateType: t.Union([t.Literal('MAJOR'), t.Literal('MINOR'), t.Literal('PATCH'), t.Null()]),
  releaseUrl: t.Union([t.String(), t.Null()], { description: "the release page of latestVersion, when the update feed names one" }),
});

const ChangelogSchema = t.Object({ entries: t.Array(t.Object({ version: t.String(), title: t.String(), body: t.String() })) });
const CHANGELOG_CACHE_MS = 5 * 60 * 1000;

export function controllerInfoRoutes(kernel: Kernel): AnyRoute[] {
  const sampler = new SystemSampler();
  const updates = kernel.updates.check;
  // The changelog is embedded in the binary; parsed at most every 5 minutes (the spec's cache).
  let changelog: { entries: ChangelogEntry[]; at: number } | null = null;

  return [
    defineRoute({
      method: 'GET',
      path: '/api/controller/info',
      auth: 'service',
      permission: 'svc.dashboard.overview',
      tag: 'system',
      summary: 'Runtime stats, system facts and the last update check (never waited for: cached or unknown)',
      response: { 200: InfoSchema, 401: ErrorBodySchema, 403: ErrorBodySchema },
      handler: () => {
        const local = kernel.services.all().filter((s) => s.nodeId === LOCAL_NODE && ACTIVE_STATES.has(s.state));
        const memory = runtimeMemory();
        return {
          version: kernel.version,
          startedAt: kernel.startedAt.toISOString(),
          uptimeSeconds: secondsSinceMono(kernel.startedMono),
          runtimeMemoryUsedMb: memory.usedMb,
          jvmMemoryUsedMb: memory.usedMb,
          jvmMemoryMaxMb: memory.maxMb,
          jvmMemoryAllocatedMb: memory.allocatedMb,
          servicesMaxMemoryMb: parseMemory(kernel.config.controller.max_memory),
          servicesAllocatedMemoryMb: machineUsage(local).memoryMb,
          servicesUsedMemoryMb: local.reduce((sum, s) => sum + memoryUsedMb(s), 0),
          runningServices: kernel.services.all().filter((s) => ACTIVE_STATES.has(s.state) && !s.pooled).length,
          system: withRuntimeAliases(sampler.read()),
          ...updates.status(),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/controller/changelog',
      auth: 'service',
      permission: 'svc.dashboard.overview',
      tag: 'system',
      summary: 'The release notes of this build, newest first',
      response: { 200: ChangelogSchema, 401: ErrorBodySchema, 403: ErrorBodySchema },
      handler: () => {
        if (!changelog || monotonicNow() - changelog.at > CHANGELOG_CACHE_MS) changelog = { entries: parseChangelog(changelogText), at: monotonicNow() };
        return { entries: changelog.entries };
      },
    }),
  ];
}

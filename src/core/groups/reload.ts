import { readFileSync } from 'node:fs';
import { ConfigError, parseConfigText } from '../../config/load';
import type { Config } from '../../config/schema';
import type { Actor } from '../../events/catalogue';
import type { Kernel } from '../../kernel';
import type { Group } from './model';

export type ReloadScope = 'LIVE' | 'NEXT_SERVICE_PREPARE' | 'REQUIRES_RESTART';

export interface ReloadSection {
  name: string;
  scope: ReloadScope;
  applied: boolean;
  description: string;
}

export interface ReloadReport {
  success: boolean;
  groupsLoaded: number;
  message: string;
  sections: ReloadSection[];
  requiresRestartIfChanged: string[];
  warnings: string[];
}

/** The spec's fixed reference list: svc.toml sections whose changes need a restart. */
export const REQUIRES_RESTART_IF_CHANGED = [
  'api', 'database', 'cluster', 'audit', 'metrics', 'controller', 'network', 'loadbalancer', 'punishments', 'resourcepacks', 'dashboard', 'console',
] as const;

/** svc.toml keys a reload applies at once (the same ones PATCH /api/config changes). */
const LIVE_KEYS: readonly (readonly [keyof Config, string])[] = [
  ['network', 'name'],
  ['console', 'colored'],
  ['console', 'log_events'],
];

/**
 * Re-reads every group file and svc.toml. Groups apply live (GROUP_* events for what changed
 * on disk); templates apply when the next service is prepared; the hot svc.toml keys apply
 * live; any other svc.toml change is reported as needing a restart. Never fails on a broken
 * file: it is a warning, and the last good state stays.
 */
export function reloadConfiguration(kernel: Kernel, actor: Actor = 'system'): ReloadReport {
  const before = new Map(kernel.groups.list().map((g) => [g.name, g]));
  const report = kernel.groups.load();
  const after = new Map(kernel.groups.list().map((g) => [g.name, g]));
  publishGroupChanges(kernel, before, after, actor);

  const warnings = [...report.broken.map((b) => `group file skipped: ${b.message}`), ...report.warnings];
  const sections: ReloadSection[] = [
    {
      name: 'groups',
      scope: 'LIVE',
      applied: true,
      description: `${report.loaded} group file(s) loaded from config/groups/${report.broken.length ? `, ${report.broken.length} skipped` : ''}`,
    },
    { name: 'templates', scope: 'NEXT_SERVICE_PREPARE', applied: true, description: 'template files are read when the next service is prepared' },
    proxySection(kernel, actor),
    { name: 'maintenance', scope: 'LIVE', applied: true, description: kernel.maintenance.reload(actor) ? 'config/maintenance.toml re-read: changes apply now' : 'config/maintenance.toml unchanged' },
    ...reloadSvcToml(kernel, warnings),
  ];
  kernel.bus.publish('CONFIG_RELOADED', { groupsLoaded: report.loaded }, actor);
  return {
    success: true,
    groupsLoaded: report.loaded,
    message: `reloaded ${report.loaded} group(s)${warnings.length ? ` with ${warnings.length} warning(s)` : ''}`,
    sections,
    requiresRestartIfChanged: [...REQUIRES_RESTART_IF_CHANGED],
    warnings,
  };
}

function proxySection(kernel: Kernel, actor: Actor): ReloadSection {
  const changed = kernel.proxySettings.reload(actor);
  const description = changed.length ? `config/proxy.toml re-read: ${changed.join(', ')} changed and sent to the proxies` : 'config/proxy.toml unchanged';
  return { name: 'proxy', scope: 'LIVE', applied: true, description };
}

function publishGroupChanges(kernel: Kernel, before: Map<string, Group>, after: Map<string, Group>, actor: Actor): void {
  for (const [name, group] of after) {
    const old = before.get(name);
    if (!old) kernel.bus.publish('GROUP_CREATED', { group: name }, actor);
    else if (!Bun.deepEquals(old, group)) kernel.bus.publish('GROUP_UPDATED', { group: name }, actor);
  }
  for (const name of before.keys()) if (!after.has(name)) kernel.bus.publish('GROUP_DELETED', { group: name }, actor);
}

function reloadSvcToml(kernel: Kernel, warnings: string[]): ReloadSection[] {
  let next: Config;
  try {
    next = parseConfigText(readFileSync(kernel.configPath, 'utf8'), kernel.configPath).config;
  } catch (error) {
    const message = error instanceof ConfigError ? error.message : `${kernel.configPath}: ${(error as Error).message}`;
    warnings.push(`svc.toml not reloaded: ${message}`);
    return [{ name: 'svc.toml', scope: 'REQUIRES_RESTART', applied: false, description: 'the file has an error; the running configuration is unchanged' }];
  }
  const live = kernel.config as unknown as Record<string, Record<string, unknown>>;
  const fresh = next as unknown as Record<string, Record<string, unknown>>;
  const sections: ReloadSection[] = [];
  for (const [section, key] of LIVE_KEYS) {
    if (live[section]![key] === fresh[section]![key]) continue;
    live[section]![key] = fresh[section]![key];
    sections.push({ name: `${section}.${key}`, scope: 'LIVE', applied: true, description: `now ${JSON.stringify(fresh[section]![key])}` });
  }
  for (const section of Object.keys(fresh)) {
    const changed = Object.keys(fresh[section]!).filter(
      (key) => !LIVE_KEYS.some(([s, k]) => s === section && k === key) && !(isSecret(section, key) && fresh[section]![key] === '') && !Bun.deepEquals(fresh[section]![key], live[section]![key]),
    );
    if (changed.length === 0) continue;
    sections.push({ name: section, scope: 'REQUIRES_RESTART', applied: false, description: `changed on disk: ${changed.join(', ')}; restart svc to apply` });
    warnings.push(`[${section}] ${changed.join(', ')} changed in svc.toml: restart svc to apply`);
  }
  return sections;
}

/** A blank secret in the file means "from the environment" or "generated": not a change. */
function isSecret(section: string, key: string): boolean {
  return (section === 'api' && key === 'token') || (section === 'cluster' && key === 'token') || (section === 'database' && key === 'password');
}

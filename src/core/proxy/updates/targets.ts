import { join } from 'node:path';
import type { Dedicated } from '../../dedicated/model';
import { templateStack, type Group } from '../../groups/model';
import { isFile } from '../../software/forge-args';
import { isInsideWorkDir, jarFileFor } from '../../software/jar-name';
import { SOFTWARE } from '../../software/kinds';
import { templateDir } from '../../templates/template-name';
import type { ProxyTarget } from './plan';
import { isUpdatableProxy } from './releases';

export interface TargetSources {
  groups: { list(): Group[] };
  dedicated: { list(): Dedicated[]; directoryOf(name: string): string };
  templatesRoot: string;
}

/** A proxy svc does not touch, and why (shown by `proxy update`). */
export interface SkippedTarget {
  kind: 'group' | 'dedicated';
  name: string;
  version: string;
  reason: string;
}

/**
 * Every proxy group and dedicated proxy whose jar svc can keep current, with the path of that
 * jar. Only kinds with a release source (releases.ts); never one whose own `startCommand`
 * does not name the jar (svc cannot know what it runs), nor one without a version.
 */
export function proxyTargets(sources: TargetSources): { targets: ProxyTarget[]; skipped: SkippedTarget[] } {
  const targets: ProxyTarget[] = [];
  const skipped: SkippedTarget[] = [];
  const consider = (kind: 'group' | 'dedicated', config: Group | Dedicated, jarDir: (jar: string) => string, within?: string) => {
    if (!isUpdatableProxy(config.software)) return;
    const skip = (reason: string) => skipped.push({ kind, name: config.name, version: config.version, reason });
    if (config.version.trim() === '') return skip('it names no version');
    const jar = jarFileFor(config.software, config.jarName || null);
    if (jar === null || !isInsideWorkDir(jar)) return skip(`its jarName "${config.jarName}" is not a file inside its directory`);
    if (config.startCommand.length > 0 && !config.startCommand.some((arg) => arg === jar || arg.endsWith(`/${jar}`))) {
      return skip(`its own startCommand does not run ${jar}`);
    }
    try {
      targets.push({ kind, name: config.name, software: config.software, version: config.version, jarPath: join(jarDir(jar), jar), isStatic: kind === 'group' && (config as Group).type === 'STATIC', ...(within ? { within } : {}) });
    } catch (error) {
      skip((error as Error).message);
    }
  };
  for (const group of sources.groups.list()) consider('group', group, (jar) => groupJarDir(sources.templatesRoot, group, jar));
  for (const config of sources.dedicated.list()) consider('dedicated', config, () => sources.dedicated.directoryOf(config.name), sources.dedicated.directoryOf(config.name));
  return { targets, skipped };
}

/**
 * The template folder whose jar a group's services run. Layers are copied in order and later
 * ones win (the global overlay last), so that is the last layer holding the jar; when none
 * does, the group's first template, where a start would fetch it (JarDownloads.ensureJar).
 * Throws PATH_TRAVERSAL for a template name that leaves the templates folder.
 */
export function groupJarDir(templatesRoot: string, group: Group, jar: string): string {
  const names = templateStack(group);
  const overlay = SOFTWARE[group.software].templateOverlay;
  const dirs = [...names, ...(overlay ? [overlay] : [])].map((name) => templateDir(templatesRoot, name));
  return dirs.findLast((dir) => isFile(join(dir, jar))) ?? dirs[0]!;
}

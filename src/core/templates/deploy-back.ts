import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from '../../log';
import { createBreather } from './breather';
import { changedFiles } from './deploy-changes';
import { excludeMatcher } from './deploy-excludes';
import { tidySiblings } from './deploy-siblings';
import { stageAndSwap } from './deploy-stage';
import { codeOf } from './place-file';
import { TenantTree } from '../tenancy/fs';
import { SkipReport } from '../tenancy/fs/report';

export interface DeployBackOptions {
  /** The stopped service's work dir (its process has ended). */
  workDir: string;
  /** The group's first template dir (templates/<name>); created if missing. */
  templateDir: string;
  /** Group's deployExcludes: plain names or globs (e.g. "logs", "crash-reports", "*.tmp", "plugins/*.jar"); see deploy-excludes.ts. */
  excludes: readonly string[];
  /** Where entries left out (links, FIFOs, hard links) are named (see tenancy/fs/report.ts). */
  log?: Logger;
}

export interface DeployBackResult {
  filesChanged: number;
  /** Relative POSIX paths, sorted by UTF-16 code unit. */
  files: string[];
}

/** Per template folder, the settled end of its queue of deploys. */
const queues = new Map<string, Promise<void>>();

/**
 * Copies what a stopped service added or changed back into its group's template ("deploy on
 * stop"). Adds and updates files, never deletes; excluded paths, the supervisor's `.svc/`
 * folder, links, special files and files with other hard links stay out (the work dir is the
 * server's: read by the tenant rule (tenancy/fs), and what is left out is named in the log). When nothing changed the template is not touched;
 * otherwise it is replaced in one swap (see deploy-stage.ts), so it is never half-updated and
 * a failure leaves it as it was.
 *
 * Deploys into the same template run one after another (two services of a group stopping at
 * once must both land, and each stage is seeded from the template the previous one left);
 * deploys into different templates run in parallel. A failed deploy does not hold up the next.
 *
 * Throws an Error whose message names the work dir, the template, the file and the cause;
 * the template is then as it was (but for the rare swap failure the message spells out).
 */
export function deployBack(options: DeployBackOptions): Promise<DeployBackResult> {
  const key = resolve(options.templateDir);
  const run = (queues.get(key) ?? Promise.resolve()).then(() => deployNow(options));
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  queues.set(key, settled);
  void settled.then(() => {
    if (queues.get(key) === settled) queues.delete(key);
  });
  return run;
}

async function deployNow(options: DeployBackOptions): Promise<DeployBackResult> {
  const templateDir = realTemplateDir(options.templateDir);
  const report = new SkipReport('deploy back', options.workDir, options.log);
  let work: TenantTree | null = null;
  try {
    // Provisioning's hard links (the template's own inodes) must be recognised as unchanged,
    // so the tree accepts them and changedFiles refuses every other.
    work = TenantTree.open(options.workDir, { hardlinks: true });
    if (!work) throw new Error('the work dir does not exist');
    tidySiblings(templateDir);
    const breathe = createBreather();
    const files = await changedFiles(work, templateDir, excludeMatcher(options.excludes), breathe, report);
    if (files.length === 0) return { filesChanged: 0, files: [] };
    await stageAndSwap(work, templateDir, files, breathe);
    return { filesChanged: files.length, files };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`deploy back from ${options.workDir} into ${templateDir} failed: ${message}`, { cause: error });
  } finally {
    work?.close();
    report.finish();
  }
}

/**
 * A template folder that is a link (or lies under one) is deployed into where it points: the
 * swap must replace the real folder, not turn the link into a folder.
 */
function realTemplateDir(templateDir: string): string {
  try {
    return realpathSync(templateDir);
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return resolve(templateDir);
    throw error;
  }
}

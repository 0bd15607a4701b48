import { lstat, mkdir } from 'node:fs/promises';
import type { Logger } from '../../log';
import { createBreather } from './breather';
import { hardlinksSafeByDefault } from './link-policy';
import { planStack } from './merge-plan';
import { codeOf, FilePlacer, removeEntry, type PlaceOutcome } from './place-file';
import { isMissing, RefusedEntry, split, TenantTree } from '../tenancy/fs';
import { SkipReport } from '../tenancy/fs/report';

export interface ProvisionOptions {
  /**
   * Replace what the work dir already holds (default; dynamic services get a fresh copy), or
   * never touch an existing file or folder entry (static services keep their own changes).
   */
  overwrite?: boolean;
  /**
   * Share jars and `libraries/` with the template through read-only hardlinks. Defaults to
   * on unless svc runs as root, where permission bits protect nothing (see link-policy.ts).
   */
  hardlinks?: boolean;
  /** Where skipped entries are named (see tenancy/fs/report.ts). */
  log?: Logger;
}

export interface ProvisionResult {
  /** Files placed: reflinked + hardlinked + copied. */
  files: number;
  /** Bytes of the files placed (what a plain copy would have written). */
  bytes: number;
  reflinked: number;
  hardlinked: number;
  copied: number;
  /** Existing work-dir entries left alone because `overwrite` was off. */
  kept: number;
  /** Absolute template paths not copied: symlinks, FIFOs, sockets, devices. */
  skipped: string[];
}

/**
 * Copies a stack of template folders (in order, later ones win) into `workDir`.
 *
 * `libraries/` is hardlinked file by file, not symlinked as a whole folder (the reference
 * does the latter): through a folder link a server would create, replace and delete files
 * inside the template itself, racing every other instance starting from it (Paper downloads
 * into `libraries/` at start), and a half-written download would be visible to all of them.
 * With per-file links new files land in the service's own folder and existing ones are
 * read-only.
 *
 * The work dir is a service's (see tenancy/fs): nothing is written through a link there. A
 * link or file where a folder goes is replaced when overwriting, else left with everything the
 * template has under it; every file is created exclusively in the real folder it belongs to.
 * Files and folders created in a work dir that belongs to another user are given to that user
 * (hard links excepted: they are the template's).
 */
export async function provisionStack(layerDirs: readonly string[], workDir: string, options: ProvisionOptions = {}): Promise<ProvisionResult> {
  const overwrite = options.overwrite ?? true;
  const placer = new FilePlacer({ overwrite, hardlinks: options.hardlinks ?? hardlinksSafeByDefault() });
  const plan = planStack(layerDirs);
  const result: ProvisionResult = { files: 0, bytes: 0, reflinked: 0, hardlinked: 0, copied: 0, kept: 0, skipped: plan.skipped };

  const tree = TenantTree.open(workDir, { create: true });
  if (!tree) throw new Error(`the work dir ${workDir} could not be created`);
  const report = new SkipReport('provisioning', workDir, options.log);
  for (const path of plan.skipped) report.skip(path, 'a link or special file in the template: never copied');
  try {
    // Folders whose place in the work dir is taken by something else that must be kept.
    const blocked = new Set<string>();
    // One level of the tree at a time, the folders of a level in parallel: on some disks a
    // mkdir costs a millisecond (measured on this project's CI VMs), which in parallel overlaps,
    // and the event loop stays free meanwhile.
    for (const level of byDepth(plan.dirs)) {
      await eachLimited(level, MKDIR_PARALLEL, async (rel) => {
        if (isUnder(rel, blocked)) return;
        if (!(await ensureDirectory(tree, rel, overwrite))) blocked.add(rel);
      });
    }

    const breathe = createBreather();
    for (const file of plan.files) {
      const outcome = isUnder(file.rel, blocked) ? ({ mode: 'kept' } as const) : await placeOne(tree, placer, file.src, file.rel, overwrite);
      switch (outcome.mode) {
        case 'kept':
          result.kept++;
          break;
        case 'vanished':
          break;
        default:
          result.files++;
          result.bytes += outcome.size;
          if (outcome.mode === 'reflink') result.reflinked++;
          else if (outcome.mode === 'hardlink') result.hardlinked++;
          else result.copied++;
      }
      const pause = breathe();
      if (pause) await pause;
    }
    return result;
  } finally {
    tree.close();
    report.finish();
  }
}

/**
 * Places one file into its folder of the work dir, reached without following links. A folder
 * of its path that turned into a link (or went away) since it was made is replaced when
 * overwriting, else the file is kept out like anything under a folder in the way.
 */
async function placeOne(tree: TenantTree, placer: FilePlacer, src: string, rel: string, overwrite: boolean): Promise<PlaceOutcome> {
  const { dir, name } = split(rel);
  try {
    return await tree.withFolderAsync(dir, overwrite ? 'replace' : 'existing', async (folder) => {
      const outcome = await placer.place(src, `${folder.base}/${name}`, rel);
      if (outcome.mode === 'copy' || outcome.mode === 'reflink') tree.adoptFile(folder, name);
      return outcome;
    });
  } catch (error) {
    if (error instanceof RefusedEntry || isMissing(error)) return { mode: 'kept' };
    throw error;
  }
}

/**
 * Creates one folder whose parent exists. True when a real folder is there afterwards. An
 * existing non-folder (a file, or a link even to a folder: writing through it would leave
 * the work dir) is replaced when overwriting, else kept and the folder's contents skipped.
 */
async function ensureDirectory(tree: TenantTree, rel: string, overwrite: boolean): Promise<boolean> {
  const { dir, name } = split(rel);
  try {
    return await tree.withFolderAsync(dir, 'existing', async (folder) => {
      const path = `${folder.base}/${name}`;
      try {
        await mkdir(path);
        tree.adoptEntry(folder, name);
        return true;
      } catch (error) {
        if (codeOf(error) !== 'EEXIST') throw error;
      }
      if ((await lstat(path)).isDirectory()) return true;
      if (!overwrite) return false;
      removeEntry(path);
      await mkdir(path);
      tree.adoptEntry(folder, name);
      return true;
    });
  } catch (error) {
    // The parent turned into a link (or went away) since it was made: nothing goes under it.
    if (error instanceof RefusedEntry || isMissing(error)) return false;
    throw error;
  }
}

const MKDIR_PARALLEL = 16;

/** Relative folder paths grouped by depth, shallowest first (parents before children). */
function byDepth(dirs: readonly string[]): string[][] {
  const levels: string[][] = [];
  for (const rel of dirs) {
    let depth = 0;
    for (let i = rel.indexOf('/'); i !== -1; i = rel.indexOf('/', i + 1)) depth++;
    (levels[depth] ??= []).push(rel);
  }
  return levels.filter((level) => level !== undefined);
}

/** Runs `task` on every item, at most `limit` at once; rejects with the first failure. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function isUnder(rel: string, blocked: ReadonlySet<string>): boolean {
  if (blocked.size === 0) return false;
  for (let slash = rel.indexOf('/'); slash !== -1; slash = rel.indexOf('/', slash + 1)) {
    if (blocked.has(rel.slice(0, slash))) return true;
  }
  return blocked.has(rel);
}

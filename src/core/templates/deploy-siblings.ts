import { randomBytes } from 'node:crypto';
import { lstatSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { codeOf } from './place-file';

/**
 * `deploy`: a template being staged. `old`: the previous template during and after a swap.
 * `install`: a Forge/NeoForge installer's staging folder (software/server-installs.ts).
 */
export type SiblingKind = 'deploy' | 'old' | 'install';

/** Leftovers this old are from a killed process (or one stuck far longer than any deploy). */
const STALE_MS = 60 * 60 * 1000;

/** A fresh `<templateDir>.<kind>-<16 hex>` next to the template, so a rename stays on one file system. */
export function siblingPath(templateDir: string, kind: SiblingKind): string {
  return `${templateDir}.${kind}-${randomBytes(8).toString('hex')}`;
}

/**
 * Deals with what a killed deploy left next to the template before the next one starts:
 *
 * - Killed between the two renames of a swap, the template exists only under its `.old-`
 *   name. It is renamed back (the newest, should there be several), so the interrupted deploy
 *   is undone rather than the next one building a template from nothing, and it is never
 *   taken for garbage.
 * - Stages, installer staging folders and old templates older than an hour are removed.
 *   Younger ones are left alone: they may belong to another process. Removal is best effort;
 *   what stays is retried next time.
 *
 * Only names this module makes (exactly 16 hex digits) are touched.
 */
export function tidySiblings(templateDir: string, now = Date.now()): void {
  const parent = dirname(templateDir);
  const pattern = new RegExp(`^${escapeRegExp(basename(templateDir))}\\.(deploy|old|install)-[0-9a-f]{16}$`);
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => pattern.test(name));
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return;
    throw error;
  }
  const siblings: { path: string; old: boolean; mtimeMs: number }[] = [];
  for (const name of names) {
    const mtimeMs = mtimeOf(join(parent, name));
    if (mtimeMs !== null) siblings.push({ path: join(parent, name), old: name.includes('.old-'), mtimeMs });
  }

  let restored: string | null = null;
  if (!exists(templateDir)) {
    const newest = siblings.filter((s) => s.old).sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
    if (newest) {
      try {
        renameSync(newest.path, templateDir);
      } catch (error) {
        throw new Error(`the template is missing and restoring it from ${newest.path} failed (${error instanceof Error ? error.message : String(error)}); rename that folder to ${templateDir} by hand`, { cause: error });
      }
      restored = newest.path;
    }
  }

  for (const sibling of siblings) {
    if (sibling.path === restored || now - sibling.mtimeMs < STALE_MS) continue;
    try {
      rmSync(sibling.path, { recursive: true, force: true });
    } catch {
      // Best effort (see above): a leftover costs disk space, never correctness.
    }
  }
}

function mtimeOf(path: string): number | null {
  try {
    return lstatSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return false;
    throw error;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import type { SoftwareName } from '../../../src/core/software/kinds';

const cleanups: (() => void)[] = [];

/**
 * Removes the temp folders made so far. Every test file registers it with `afterEach`: a hook
 * registered here would run for the first file that imports this module only (Bun shares the
 * module between files).
 */
export function removeTempDirs(): void {
  cleanups.splice(0).forEach((f) => f());
}

/** A fresh temp folder, removed after the test. */
export function tempDir(prefix = 'svc-templates-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Writes files (relative path → content) under `root`, creating folders. */
export function writeTree(root: string, files: Record<string, string | Uint8Array>): void {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}

/** Every regular file under `root` as relative path → text, for whole-tree comparisons. */
export function readTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    out[path.slice(root.length + 1)] = readFileSync(path, 'utf8');
  }
  return out;
}

export function group(name: string, software: SoftwareName, fields: Partial<Group> = {}): Group {
  return { ...groupDefaults(), name, software, version: '1.21.4', ...fields };
}

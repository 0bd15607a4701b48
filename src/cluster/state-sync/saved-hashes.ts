import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../../config/write';
import type { HashCache } from './hash-cache';

/**
 * The hash tables of the canonical copies, kept in `<state root>/.hashes/<service>.json` so a
 * restarted controller answers manifests without reading every file again (a manifest of a
 * large world hashed from cold could outlast the HTTP idle timeout). A table is only a cache:
 * every entry is checked against a fresh lstat (size, mtime, inode) before it is used, and a
 * missing or damaged file just means hashing again.
 */
export const HASHES_DIR = '.hashes';

const fileOf = (root: string, service: string) => join(root, HASHES_DIR, `${service}.json`);

export function saveHashes(root: string, service: string, cache: HashCache, canonical: string): void {
  // Not fsynced: losing it to a power cut costs a re-hash, never correctness.
  writeFileAtomic(fileOf(root, service), JSON.stringify(cache.exportFolder(canonical)), { durable: false });
}

export function loadHashes(root: string, service: string, cache: HashCache, canonical: string): void {
  try {
    cache.importFolder(canonical, JSON.parse(readFileSync(fileOf(root, service), 'utf8')));
  } catch {
    // Missing or damaged: the files are hashed when first asked for.
  }
}

/** Removes temp files a killed write left in the hashes folder. */
export function tidyHashes(root: string): void {
  let names: string[];
  try {
    names = readdirSync(join(root, HASHES_DIR));
  } catch {
    return;
  }
  for (const name of names) if (name.endsWith('.tmp')) rmSync(join(root, HASHES_DIR, name), { force: true });
}

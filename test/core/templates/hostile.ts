import { expect } from 'bun:test';
import { existsSync, linkSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from '../../../src/log';
import { tempDir } from './fixtures';

/**
 * A service directory as a hostile server leaves it: links to a file and to a folder outside,
 * a FIFO, a hard link to a file outside. Everything "outside" holds a secret that must never
 * show up in what svc writes or answers, and must be byte for byte the same afterwards.
 */
export interface Hostile {
  base: string;
  /** The folder the planted links point into (not part of any service). */
  outside: string;
  /** Secrets, each unique to this run; every outside file holds one. */
  secrets: string[];
  /** Every outside file → its content and mtime, as planted. */
  snapshot: Map<string, { content: string; mtimeMs: number; mode: number; uid: number }>;
}

/** Makes `base/outside` with its secrets. */
export function hostileBase(prefix = 'svc-hostile-'): Hostile {
  const base = tempDir(prefix);
  const outside = join(base, 'outside');
  const secrets = [0, 1, 2, 3].map((i) => `OUTSIDE-SECRET-${i}-${randomBytes(8).toString('hex')}`);
  mkdirSync(join(outside, 'dir', 'nested'), { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), `${secrets[0]}\n`);
  writeFileSync(join(outside, 'dir', 'inner.txt'), `${secrets[1]}\n`);
  writeFileSync(join(outside, 'dir', 'nested', 'deep.yml'), `key: ${secrets[2]}\n`);
  writeFileSync(join(outside, 'hardlinked.txt'), `${secrets[3]}\n`);
  return { base, outside, secrets, snapshot: snapshotOf(outside) };
}

/**
 * Plants the hostile entries in `dir` (created if missing), under the names given: a link to
 * the outside file, a link to the outside folder, a FIFO, a hard link to an outside file. A
 * name may hold folders (`config/x`), which are made.
 */
export function plant(h: Hostile, dir: string, names: { fileLink?: string[]; dirLink?: string[]; fifo?: string[]; hardlink?: string[] }): void {
  mkdirSync(dir, { recursive: true });
  const parent = (rel: string) => mkdirSync(join(dir, rel, '..'), { recursive: true });
  for (const rel of names.fileLink ?? []) {
    parent(rel);
    symlinkSync(join(h.outside, 'secret.txt'), join(dir, rel));
  }
  for (const rel of names.dirLink ?? []) {
    parent(rel);
    symlinkSync(join(h.outside, 'dir'), join(dir, rel));
  }
  for (const rel of names.fifo ?? []) {
    parent(rel);
    const made = Bun.spawnSync(['mkfifo', join(dir, rel)]);
    if (made.exitCode !== 0) throw new Error(`mkfifo failed: ${made.stderr.toString()}`);
  }
  for (const rel of names.hardlink ?? []) {
    parent(rel);
    linkSync(join(h.outside, 'hardlinked.txt'), join(dir, rel));
  }
}

/** The outside files are as planted (content, mtime, mode, owner) and nothing was added there. */
export function expectOutsideUntouched(h: Hostile): void {
  const now = snapshotOf(h.outside);
  expect([...now.keys()].sort()).toEqual([...h.snapshot.keys()].sort());
  for (const [path, before] of h.snapshot) expect({ path, ...now.get(path)! }).toEqual({ path, ...before });
}

/** No secret appears in `text` (a file, an answer, an archive's bytes as latin1). */
export function expectNoSecret(h: Hostile, text: string | Uint8Array): void {
  const haystack = typeof text === 'string' ? text : Buffer.from(text).toString('latin1');
  for (const secret of h.secrets) expect(haystack.includes(secret)).toBe(false);
}

/** No secret appears in any regular file under `dir` (links not followed). */
export function expectNoSecretUnder(h: Hostile, dir: string): void {
  if (!existsSync(dir)) return;
  const planted = statSync(join(h.outside, 'hardlinked.txt')).ino;
  const visit = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) visit(path);
      // A hard link planted by the test is still the outside file's inode: not svc's output.
      else if (entry.isFile() && lstatSync(path).ino !== planted) expectNoSecret(h, readFileSync(path));
    }
  };
  visit(dir);
}

function snapshotOf(dir: string): Hostile['snapshot'] {
  const out: Hostile['snapshot'] = new Map();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const stats = lstatSync(path);
    out.set(path, { content: entry.isFile() ? readFileSync(path, 'utf8') : entry.isDirectory() ? '<dir>' : '<other>', mtimeMs: stats.mtimeMs, mode: stats.mode, uid: stats.uid });
  }
  return out;
}

/**
 * A safety net for FIFOs: if anything in this process blocks opening one of `fifos` for
 * reading, a watchdog process (started now, killed by `stop`) opens it for writing after
 * `seconds`, which releases the reader, and leaves a mark. `stop` says whether that happened,
 * so a regression fails the test instead of hanging the run. Nothing waits for the watchdog
 * in a passing run.
 */
export function fifoWatchdog(fifos: readonly string[], seconds = 20): { stop(): boolean } {
  const mark = join(tempDir('svc-fifo-watchdog-'), 'hung');
  const script = `
    const fs = require('node:fs');
    const mark = process.env.WATCHDOG_MARK;
    const fifos = JSON.parse(process.env.WATCHDOG_FIFOS);
    setTimeout(() => {
      for (const fifo of fifos) {
        try {
          const fd = fs.openSync(fifo, fs.constants.O_WRONLY | fs.constants.O_NONBLOCK);
          fs.writeFileSync(mark, fifo);
          fs.closeSync(fd);
        } catch {}
      }
    }, ${seconds * 1000});
  `;
  const child = Bun.spawn([process.execPath, '-e', script], { env: { ...process.env, WATCHDOG_MARK: mark, WATCHDOG_FIFOS: JSON.stringify(fifos) }, stdout: 'ignore', stderr: 'ignore' });
  return {
    stop() {
      child.kill();
      return existsSync(mark);
    },
  };
}

/** A logger that keeps what it is told, for asserting which files were named as left out. */
export function recordingLogger(): Logger & { lines: { level: string; fields: Record<string, unknown>; msg: string }[] } {
  const lines: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
  const at =
    (level: string) =>
    (obj: unknown, msg?: string): void => {
      if (typeof obj === 'string') lines.push({ level, fields: {}, msg: obj });
      else lines.push({ level, fields: (obj ?? {}) as Record<string, unknown>, msg: msg ?? '' });
    };
  const log = {
    lines,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    fatal: at('fatal'),
    level: 'trace' as const,
    child: () => log,
    flush: () => undefined,
  };
  return log as Logger & { lines: typeof lines };
}

/** The files named in a recording logger's warnings. */
export function namedFiles(log: ReturnType<typeof recordingLogger>): string[] {
  return log.lines.filter((line) => typeof line.fields.file === 'string').map((line) => line.fields.file as string);
}

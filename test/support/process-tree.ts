import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The forking fixture server (test/fixtures/forking-server.sh) and how a test finds what it
 * forked: every child runs `sleep <tag>`, with a tag no other process uses, so its processes
 * are found by command line wherever they went (in the group, out of it with setsid, under
 * another uid, inside a sandbox's pid namespace).
 */
export const FORKING_SERVER = join(import.meta.dir, '../fixtures/forking-server.sh');

/** A sleep length (s) no other test uses: about 11 days plus a random part. */
export function uniqueTag(): string {
  return String(1_000_000 + Math.floor(Math.random() * 8_000_000));
}

/** argv of the forking server; modes: `hang` (ignores stop and SIGTERM), `escape` (one child leaves the group). */
export function forkingServerArgv(tag: string, ...modes: ('hang' | 'escape')[]): string[] {
  return ['/bin/sh', FORKING_SERVER, tag, ...modes];
}

/** Live (non-zombie) `sleep <tag>` processes. */
export function sleepersOf(tag: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (!argv[0]?.endsWith('sleep') || argv[1] !== tag) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
      const state = stat.charAt(stat.lastIndexOf(')') + 2);
      if (state !== 'Z' && state !== 'X') found.push(pid);
    } catch {
      // ended meanwhile
    }
  }
  return found;
}

/** The process group of a live pid; undefined once it is gone. */
export function groupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

/** SIGKILL to every `sleep <tag>` left (a failed test's clean-up). */
export function killSleepers(tag: string): void {
  for (const pid of sleepersOf(tag)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

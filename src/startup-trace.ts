/**
 * Where the start goes, for whoever works on startup time: with SVC_STARTUP_TRACE=1 the
 * controller prints each phase's end (ms since exec, and the resident memory then) to stderr
 * once the API has answered its first request. Off, a mark is one boolean test.
 */
import { readFileSync } from 'node:fs';

const enabled = process.env.SVC_STARTUP_TRACE === '1';
const marks: { name: string; at: number; rssKiB: number }[] = [];

function rssKiB(): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export function startupMark(name: string): void {
  if (enabled) marks.push({ name, at: performance.now(), rssKiB: rssKiB() });
}

/**
 * Marks the first response and prints the trace, once; called for every answered request, so
 * after the first (or with the trace off) it is one boolean test.
 */
export function startupFirstResponse(): void {
  if (!enabled || marks.length === 0) return;
  startupMark('first response sent');
  let previous = 0;
  const lines = marks.map(({ name, at, rssKiB }) => {
    const line = `${at.toFixed(1).padStart(7)} ms  +${(at - previous).toFixed(1).padStart(6)} ms  ${(rssKiB / 1024).toFixed(1).padStart(5)} MiB  ${name}`;
    previous = at;
    return line;
  });
  marks.length = 0;
  process.stderr.write(`startup trace (since exec):\n${lines.join('\n')}\n`);
}

/**
 * console.log stays bounded on disk while a server writes it (issue 38, smaller items): the
 * delivered start of the file becomes a hole, so the server's O_APPEND writes, the tail's
 * offset, lastLines and re-attach offsets never move, and every line is still delivered.
 */
import { describe, expect, test } from 'bun:test';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { reattach } from '../../../../src/core/supervisor/process';
import { LogTrimmer } from '../../../../src/core/supervisor/process/log-bound';
import { eventually, LineLog, processScope, within } from './harness';

const scope = processScope('log-bound');
const BOUND = { maxBytes: 1024 * 1024, keepBytes: 512 * 1024 };
/** Each command prints 20,000 numbered lines (about 130 KB), then `chunk <n>`. */
const CHUNKS = ['/bin/sh', '-c', 'echo ready; while read -r n; do seq "$n" $((n + 19999)); echo "chunk $n"; done'];
const CHUNK_LINES = 20_000;

const allocated = (path: string) => statSync(path).blocks * 512;

/** The numbered lines the chunk server printed from 1 up to `chunks` chunks, with their markers. */
function expectedLines(chunks: number): string[] {
  const lines = ['ready'];
  for (let c = 0; c < chunks; c++) {
    const from = 1 + c * CHUNK_LINES;
    for (let n = from; n < from + CHUNK_LINES; n++) lines.push(String(n));
    lines.push(`chunk ${from}`);
  }
  return lines;
}

describe('a bounded console.log', () => {
  test('past maxBytes the delivered start becomes a hole: disk use stays bounded, every line arrives, offsets hold', async () => {
    const { handle, log } = await scope.start(CHUNKS, { logBound: BOUND });
    await log.waitFor(/^ready$/);
    const chunks = 80; // about 10 MB of output through a 1 MiB bound
    for (let c = 0; c < chunks; c++) {
      handle.write(String(1 + c * CHUNK_LINES));
      await log.waitFor(new RegExp(`^chunk ${1 + c * CHUNK_LINES}$`), 0, 10_000);
      // Bounded while it runs: at most the bound, the part kept and a chunk in flight.
      await eventually(() => allocated(handle.logFile) <= BOUND.maxBytes + BOUND.keepBytes + 256 * 1024, `the log trimmed after chunk ${c}`);
    }
    const size = statSync(handle.logFile).size;
    expect(size).toBeGreaterThan(9 * 1024 * 1024); // the file keeps its length: no offset moved
    expect(log.lines).toEqual(expectedLines(chunks));
    expect(handle.lastLines(2)).toEqual([String(chunks * CHUNK_LINES), `chunk ${1 + (chunks - 1) * CHUNK_LINES}`]);

    // What was trimmed reads as zeros; the tail is intact.
    const fd = openSync(handle.logFile, 'r');
    const head = Buffer.alloc(4096);
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    expect(head.every((byte) => byte === 0)).toBe(true);

    // A re-attach from the current end finds its context in the kept tail.
    handle.close();
    const again = await reattach(handle.stateDir, { logBound: BOUND });
    if (again.kind !== 'attached') throw new Error(`expected attached, got ${JSON.stringify(again)}`);
    const reattached = scope.track(again.handle);
    const after = new LineLog(reattached);
    expect(reattached.lastLines(1)).toEqual([`chunk ${1 + (chunks - 1) * CHUNK_LINES}`]);
    reattached.write('1000000');
    await after.waitFor(/^chunk 1000000$/, 0, 10_000);
    expect(after.lines[0]).toBe('1000000');
    expect(after.lines.length).toBe(CHUNK_LINES + 1);
    reattached.signal('SIGKILL');
    expect(await within(reattached.exited, 'exit')).toEqual({ code: 137 });
  }, 60_000);

  test('under the bound nothing is touched', async () => {
    const { handle, log } = await scope.start(CHUNKS, { logBound: BOUND });
    handle.write('1');
    await log.waitFor(/^chunk 1$/);
    const fd = openSync(handle.logFile, 'r');
    const head = Buffer.alloc(6);
    readSync(fd, head, 0, head.length, 0);
    closeSync(fd);
    expect(head.toString()).toBe('ready\n');
  });

  test('a log that cannot be trimmed is said once, and left to grow', async () => {
    const said: string[] = [];
    const trimmer = new LogTrimmer(join(scope.workDir(), 'no-such-dir', 'console.log'), BOUND, (reason) => said.push(reason));
    trimmer.afterRead(4 * 1024 * 1024);
    await eventually(() => said.length === 1, 'the notice');
    expect(said[0]).toContain('cannot trim');
    trimmer.afterRead(8 * 1024 * 1024);
    expect(trimmer.trimmedTo).toBe(0);
    expect(said.length).toBe(1);
  });

  test('a bound that keeps more than it allows is refused', () => {
    expect(() => new LogTrimmer('/x', { maxBytes: 10, keepBytes: 10 })).toThrow(/must exceed/);
  });
});

import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { RING_CAPACITY } from '../../../../src/core/supervisor/process';
import { eventually, echoArgv, processScope, within } from './harness';

const scope = processScope('output');

describe('console output', () => {
  test('two services in parallel never mix their lines', async () => {
    const [a, b] = await Promise.all([scope.start(echoArgv(), { name: 'a' }), scope.start(echoArgv(), { name: 'b' })]);
    for (let i = 0; i < 200; i++) {
      a.handle.write(`echo a ${i}`);
      b.handle.write(`echo b ${i}`);
    }
    await a.log.waitFor(/^a 199$/);
    await b.log.waitFor(/^b 199$/);
    const expected = (prefix: string) => ['runner-echo ready', ...Array.from({ length: 200 }, (_, i) => `${prefix} ${i}`)];
    expect(a.log.lines).toEqual(expected('a'));
    expect(b.log.lines).toEqual(expected('b'));
  });

  test('a line written in pieces arrives once, joined', async () => {
    const { handle, log } = await scope.start(echoArgv());
    await log.waitFor(/^runner-echo ready$/);
    handle.write('part hel');
    await eventually(() => readFileSync(handle.logFile, 'utf8').endsWith('hel'), '"hel" in the log');
    handle.write('part lo wor');
    await eventually(() => readFileSync(handle.logFile, 'utf8').endsWith('lo wor'), '"lo wor" in the log');
    handle.write('part ld');
    handle.write('nl');
    handle.write('echo next');
    await log.waitFor(/^next$/);
    expect(log.lines).toEqual(['runner-echo ready', 'hello world', 'next']);
  });

  test('stderr lines are console lines too', async () => {
    const { handle, log } = await scope.start(echoArgv());
    handle.write('err on stderr');
    handle.write('echo on stdout');
    await log.waitFor(/^on stdout$/);
    expect(log.lines).toEqual(['runner-echo ready', 'on stderr', 'on stdout']);
  });

  test('a 1 MB burst arrives completely and in order', async () => {
    const { handle, log } = await scope.start(echoArgv());
    const count = 16_384;
    handle.write(`burst ${count} 64`); // 16384 x 64 bytes = 1 MiB
    await log.waitFor(/^burst done$/, 0, 10_000);
    const burst = log.lines.slice(1, -1);
    expect(burst.length).toBe(count);
    const wrong = burst.findIndex((line, i) => line !== `burst ${i} `.padEnd(63, 'x'));
    expect(wrong).toBe(-1);
    expect(handle.lastLines(RING_CAPACITY + 10).length).toBe(RING_CAPACITY);
    expect(handle.lastLines(2)).toEqual([`burst ${count - 1} `.padEnd(63, 'x'), 'burst done']);
  });

  test('a final line without a newline is delivered when the process ends', async () => {
    const { handle, log } = await scope.start(echoArgv());
    handle.write('part no newline at the end');
    handle.write('exit 0');
    await within(handle.exited, 'exit');
    expect(log.lines).toEqual(['runner-echo ready', 'no newline at the end']);
  });

  test('writes beyond the pipe buffer never block: they queue and arrive in order', async () => {
    // sh reads nothing until the go file exists, so the 64 KiB FIFO buffer fills up.
    const workDir = scope.workDir();
    const { handle, log } = await scope.start(['sh', '-c', 'while [ ! -e go ]; do sleep 0.01; done; exec cat'], { workDir });
    const line = (i: number) => `${i} `.padEnd(1000, '.');
    const started = performance.now();
    for (let i = 0; i < 200; i++) handle.write(line(i)); // ~200 KB
    expect(performance.now() - started).toBeLessThan(1_000);
    await Bun.write(`${workDir}/go`, '');
    await log.waitFor(/^199 /);
    expect(log.lines).toEqual(Array.from({ length: 200 }, (_, i) => line(i)));
  });
});

/** svc.log is rotated while the controller runs (not only at start), and expected errors print one line. */
import { afterEach, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../src/log';
import { ApiError } from '../src/errors';
import { tempDir } from './support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

describe('svc.log rotation while running', () => {
  test('past the size the file becomes svc.log.1 between two whole lines, and writing goes on in a fresh svc.log', () => {
    const { dir, remove } = tempDir('svc-log-rotate-');
    cleanups.push(remove);
    const lines: string[] = [];
    const log = createLogger({ format: 'json', colored: false, dir, rotateBytes: 2048, stdout: { write: (l: string) => lines.push(l) } });
    for (let i = 0; i < 40; i++) log.info({ i, pad: 'x'.repeat(60) }, `line ${i}`);
    const rotated = readFileSync(join(dir, 'svc.log.1'), 'utf8');
    const current = readFileSync(join(dir, 'svc.log'), 'utf8');
    // every line whole, none lost between the two files (the older .1 is replaced by a later rotation)
    const parsed = [...rotated.split('\n'), ...current.split('\n')].filter(Boolean).map((l) => JSON.parse(l) as { i: number });
    expect(parsed.length).toBeGreaterThan(0);
    const seen = parsed.map((e) => e.i);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(39);
    expect(Buffer.byteLength(current)).toBeLessThan(2048);
    expect(lines).toHaveLength(40);
  });
});

describe('readable log lines', () => {
  test('an expected error (ApiError) is one line with its message, no stack; an unexpected one keeps its stack', () => {
    const out: string[] = [];
    const log = createLogger({ format: 'pretty', colored: false, stdout: { write: (l: string) => out.push(l) } });
    log.error({ service: 'Lobby-1', err: new ApiError('SERVICE_START_FAILED', 'server.jar could not be downloaded: connection refused') }, 'start failed');
    log.error({ err: new TypeError('boom') }, 'a bug');
    expect(out[0]).toMatch(/ERROR start failed service=Lobby-1 err=server\.jar could not be downloaded: connection refused\n$/);
    expect(out[0]!.split('\n')).toHaveLength(2);
    expect(out[1]).toContain('TypeError: boom\n    at ');
  });
});

/**
 * The controller's logger (src/log.ts), pino as the controller configures it: the JSON line
 * format byte for byte (level numbers, ISO time, bindings before fields, msg last), pino's error
 * serializer and redaction paths, the pretty console format, and svc.log with its rotate-at-start.
 * Where a key is given twice (a msg field and a msg argument, a binding and a call field), pino
 * writes both and the later one is what a JSON reader gets; these tests hold what a reader gets.
 */
import { afterAll, afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type LogOptions } from '../src/log';
import { tempDir } from './support/controller';

const NOW = new Date('2024-05-06T07:08:09.123Z');

function capture(options: Partial<LogOptions> = {}) {
  const lines: string[] = [];
  const log = createLogger({ format: 'json', colored: false, ...options, stdout: { write: (line: string) => void lines.push(line) } });
  return { log, lines, entries: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

/** An error whose stack does not depend on where the test file sits. */
function fixedError(message: string, stack = `Error: ${message}\n    at here (file.ts:1:1)`): Error {
  const error = new Error(message);
  error.stack = stack;
  return error;
}

beforeEach(() => setSystemTime(NOW));
afterEach(() => setSystemTime());

describe('JSON lines', () => {
  test('one object per line: level, time, child bindings, call fields, msg, in that order', () => {
    const { log, lines } = capture();
    log.child({ area: 'http', node: 'n1' }).info({ port: 8080, tls: false }, 'listening');
    log.warn('plain');
    log.error({ code: 7 });
    expect(lines).toEqual([
      '{"level":30,"time":"2024-05-06T07:08:09.123Z","area":"http","node":"n1","port":8080,"tls":false,"msg":"listening"}\n',
      '{"level":40,"time":"2024-05-06T07:08:09.123Z","msg":"plain"}\n',
      '{"level":50,"time":"2024-05-06T07:08:09.123Z","code":7}\n',
    ]);
  });

  test("pino's level numbers, and a level name from a variable", () => {
    const { log, entries } = capture({ level: 'trace' });
    for (const name of ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const) log[name]({}, name);
    expect(entries().map((e) => [e.level, e.msg])).toEqual([
      [10, 'trace'],
      [20, 'debug'],
      [30, 'info'],
      [40, 'warn'],
      [50, 'error'],
      [60, 'fatal'],
    ]);
  });

  test('values JSON drops stay dropped; a msg argument wins over a msg field and comes last', () => {
    const { log, lines, entries } = capture();
    log.info({ msg: 'field', gone: undefined, fn: () => 1, nan: NaN, when: new Date(0) }, 'argument');
    expect(lines[0]).toEndWith('"nan":null,"when":"1970-01-01T00:00:00.000Z","msg":"argument"}\n');
    expect(entries()[0]).toEqual({ level: 30, time: NOW.toISOString(), msg: 'argument', nan: null, when: '1970-01-01T00:00:00.000Z' });
  });
});

describe('levels', () => {
  test('the default is info: trace and debug write nothing, and their fields are never read', () => {
    const { log, entries } = capture();
    let reads = 0;
    const fields = {
      get costly() {
        reads++;
        return 1;
      },
    };
    log.trace(fields, 'hidden');
    log.debug(fields, 'hidden');
    log.info('shown');
    expect(entries().map((e) => e.msg)).toEqual(['shown']);
    expect(reads).toBe(0);
    expect(log.level).toBe('info');
  });

  test('trace shows everything', () => {
    const { log, entries } = capture({ level: 'trace' });
    log.trace('t');
    log.debug('d');
    expect(entries().map((e) => e.msg)).toEqual(['t', 'd']);
  });

  test('warn hides info; a child keeps its parent level', () => {
    const { log, entries } = capture({ level: 'warn' });
    const child = log.child({ area: 'x' });
    log.info('no');
    child.info('no');
    child.warn('yes');
    expect(entries().map((e) => e.msg)).toEqual(['yes']);
    expect(child.level).toBe('warn');
  });

  test('an unknown or missing level name means info; silent writes nothing', () => {
    for (const level of ['verbose', '', undefined]) {
      const { log, entries } = capture({ level });
      log.debug('no');
      log.info('yes');
      expect(entries().map((e) => e.msg)).toEqual(['yes']);
      expect(log.level).toBe('info');
    }
    const silent = capture({ level: 'silent' });
    silent.log.fatal('no');
    expect(silent.lines).toEqual([]);
  });

  test('the level property can be changed', () => {
    const { log, entries } = capture();
    log.level = 'debug';
    log.debug('now shown');
    expect(entries().map((e) => e.msg)).toEqual(['now shown']);
  });
});

describe('child loggers', () => {
  test('nest: bindings in order, parent first; a later binding or a call field is the value read', () => {
    const { log, lines, entries } = capture();
    const deep = log.child({ area: 'cluster', node: 'a' }).child({ node: 'b', session: 1 });
    deep.info({ session: 2, extra: true }, 'hello');
    expect(lines[0]).toStartWith('{"level":30,"time":"2024-05-06T07:08:09.123Z","area":"cluster","node":"a","node":"b","session":1,"session":2,"extra":true,');
    expect(entries()[0]).toEqual({ level: 30, time: NOW.toISOString(), area: 'cluster', node: 'b', session: 2, extra: true, msg: 'hello' });
  });

  test('a parent does not see its child bindings', () => {
    const { log, entries } = capture();
    log.child({ area: 'x' });
    log.info('root');
    expect(entries()[0]).toEqual({ level: 30, time: NOW.toISOString(), msg: 'root' });
  });
});

describe('errors', () => {
  test('err: type, message, stack, then other own enumerable properties', () => {
    class DiskError extends Error {}
    const { log, lines } = capture();
    const error = Object.assign(new DiskError('disk full'), { code: 'ENOSPC', path: '/x' });
    error.stack = 'DiskError: disk full\n    at here (file.ts:1:1)';
    log.error({ err: error }, 'write failed');
    expect(lines[0]).toBe(
      '{"level":50,"time":"2024-05-06T07:08:09.123Z","err":{"type":"DiskError","message":"disk full","stack":"DiskError: disk full\\n    at here (file.ts:1:1)","code":"ENOSPC","path":"/x"},"msg":"write failed"}\n',
    );
  });

  test('an Error as the first argument goes under err, its message the default msg', () => {
    const { log, entries } = capture();
    log.error(fixedError('boom'));
    log.error(fixedError('boom'), 'while starting');
    log.error({ err: fixedError('from field') });
    expect(entries().map((e) => [(e.err as { message: string }).message, e.msg])).toEqual([
      ['boom', 'boom'],
      ['boom', 'while starting'],
      ['from field', 'from field'],
    ]);
  });

  test("a cause chain is folded into message and stack, as pino's serializer does", () => {
    const { log, entries } = capture();
    const inner = Object.assign(fixedError('connection refused'), { code: 'ECONNREFUSED' });
    log.error({ err: new Error('download failed', { cause: inner }) });
    const err = entries()[0]!.err as Record<string, unknown>;
    expect(err.message).toBe('download failed: connection refused');
    expect(err.stack).toEndWith('\ncaused by: Error: connection refused\n    at here (file.ts:1:1)');
    expect(err).not.toHaveProperty('cause');
  });

  test('circular references: cause cycles end, an error inside itself is left out, a cyclic property becomes "[Circular]"', () => {
    const { log, entries } = capture();
    const a = fixedError('a') as Error & Record<string, unknown>;
    const b = fixedError('b');
    a.cause = b;
    b.cause = a;
    a.self = a;
    const context: Record<string, unknown> = { id: 1 };
    context.back = context;
    a.context = context;
    expect(() => log.error({ err: a }, 'cyclic')).not.toThrow();
    const err = entries()[0]!.err as Record<string, unknown>;
    expect(err.message).toBe('a: b: a: ...');
    expect(err.stack).toEndWith('\ncauses have become circular...');
    expect(err).not.toHaveProperty('self');
    expect(err.context).toEqual({ id: 1, back: '[Circular]' });
  });

  test('a non-error err is written as it is', () => {
    const { log, entries } = capture();
    log.error({ err: 'text' }, 'odd');
    expect(entries()[0]!.err).toBe('text');
  });
});

describe('redaction', () => {
  test('token, password and authorization at the top level and one level down, the input untouched', () => {
    const { log, lines } = capture();
    const headers = { authorization: 'Bearer abc', accept: 'json' };
    const fields = { token: 't1', password: 'p1', headers, deeper: { inner: { token: 'kept' } }, list: [{ token: 'kept' }] };
    log.info(fields, 'request');
    expect(lines[0]).toBe(
      '{"level":30,"time":"2024-05-06T07:08:09.123Z","token":"[redacted]","password":"[redacted]","headers":{"authorization":"[redacted]","accept":"json"},"deeper":{"inner":{"token":"kept"}},"list":[{"token":"kept"}],"msg":"request"}\n',
    );
    expect(fields.token).toBe('t1');
    expect(headers.authorization).toBe('Bearer abc');
  });

  test('bindings are redacted too', () => {
    const { log, entries } = capture();
    log.child({ token: 'secret', auth: { password: 'x' } }).info('bound');
    expect(entries()[0]).toMatchObject({ token: '[redacted]', auth: { password: '[redacted]' } });
  });
});

describe('values JSON.stringify cannot write', () => {
  test('BigInt and cycles do not throw: BigInt as a JSON number (all its digits), a cycle ends in "[Circular]"', () => {
    const { log, lines } = capture();
    const loop: Record<string, unknown> = { x: 1 };
    loop.self = loop;
    const shared = { s: 1 };
    expect(() => log.info({ big: 12345678901234567890n, loop, twice: [shared, shared] }, 'odd values')).not.toThrow();
    expect(lines[0]).toContain('"big":12345678901234567890,');
    expect(lines[0]).toContain('"[Circular]"');
    expect(lines[0]).toEndWith('"twice":[{"s":1},{"s":1}],"msg":"odd values"}\n');
  });

  test('a throwing toJSON does not throw from the log call, and the other fields are written', () => {
    const { log, entries } = capture();
    log.info({ bad: { toJSON: () => { throw new Error('no'); } }, ok: 1 }, 'still written');
    expect(entries()[0]).toMatchObject({ bad: expect.stringContaining('unable to serialize'), ok: 1, msg: 'still written' });
  });
});

describe('pretty format', () => {
  const error = fixedError('boom');

  function sample(colored: boolean): string {
    const { log, lines } = capture({ format: 'pretty', colored });
    log.child({ area: 'http' }).warn({ port: 8080, peer: 'a b', opts: { tls: true }, big: 5n, token: 'x' }, 'listening');
    log.error({ err: error, code: 3 }, 'failed');
    return lines.join('');
  }

  test('without colour', () => {
    expect(sample(false)).toBe(
      '07:08:09 WARN  [http] listening port=8080 peer=a b opts={"tls":true} big=5 token=[redacted]\n' + //
        '07:08:09 ERROR failed\nError: boom\n    at here (file.ts:1:1) code=3\n',
    );
  });

  test('with colour', () => {
    expect(sample(true)).toBe(
      '\x1b[90m07:08:09\x1b[0m \x1b[33mWARN \x1b[0m \x1b[90m[http] \x1b[0mlistening port=8080 peer=a b opts={"tls":true} big=5 token=[redacted]\n' +
        '\x1b[90m07:08:09\x1b[0m \x1b[31mERROR\x1b[0m failed\nError: boom\n    at here (file.ts:1:1) code=3\n',
    );
  });
});

describe('svc.log', () => {
  const temp = tempDir('svc-log-test-');
  afterAll(() => temp.remove());
  let n = 0;
  const freshDir = () => join(temp.dir, `logs-${++n}`);

  test('gets the same JSON lines as the console, also in pretty format, at every level passed', () => {
    const dir = freshDir();
    const { log, lines } = capture({ format: 'pretty', dir, level: 'debug' });
    log.child({ area: 'db' }).debug({ token: 's' }, 'opened');
    log.trace('not passed');
    log.flush();
    expect(lines).toEqual(['07:08:09 DEBUG [db] opened token=[redacted]\n']);
    expect(readFileSync(join(dir, 'svc.log'), 'utf8')).toBe('{"level":20,"time":"2024-05-06T07:08:09.123Z","area":"db","token":"[redacted]","msg":"opened"}\n');
  });

  test('appends across loggers; rotated to svc.log.1 at start once past 10 MiB', () => {
    const dir = freshDir();
    createLogger({ format: 'json', colored: false, dir, stdout: { write: () => undefined } }).info('first');
    createLogger({ format: 'json', colored: false, dir, stdout: { write: () => undefined } }).info('second');
    const file = join(dir, 'svc.log');
    expect(readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l).msg)).toEqual(['first', 'second']);
    expect(existsSync(`${file}.1`)).toBe(false);

    const big = 'x'.repeat(10 * 1024 * 1024 + 1);
    writeFileSync(file, big);
    createLogger({ format: 'json', colored: false, dir, stdout: { write: () => undefined } }).info('after rotation');
    expect(statSync(`${file}.1`).size).toBe(big.length);
    expect(readFileSync(file, 'utf8')).toBe('{"level":30,"time":"2024-05-06T07:08:09.123Z","msg":"after rotation"}\n');
  });
});

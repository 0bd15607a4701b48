import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type DestinationStream } from 'pino';
import { LogFile } from './log-file';

/*
 * The controller's logger is pino, configured for the line format operators and tests parse:
 *
 *   {"level":30,"time":"2024-01-02T03:04:05.678Z",...child bindings,...call fields,"msg":"..."}
 *
 * pino's level numbers, an ISO time, no pid/hostname (`base: null`), `err` through pino's standard
 * error serializer, and token/password/authorization removed by pino's `redact` at the top level
 * and one level down. Every destination is synchronous, so a line is written before the call
 * returns and nothing is lost at exit:
 *  - the console gets the JSON line (`SVC_LOG_FORMAT=json`) or a readable line rendered from it in
 *    this process (pino-pretty's worker transport cannot run in a compiled binary, oven-sh/bun#10246);
 *  - svc.log (with `dir`) gets the JSON line through LogFile: whole lines only, rotated, and a
 *    line saying how many were lost to a full disk. pino.multistream hands each line to both.
 */

export interface LogOptions {
  /** `json` writes one JSON object per line to stdout; `pretty` writes readable lines. */
  format: 'json' | 'pretty';
  colored: boolean;
  /** Folder of svc.log (JSON lines, rotated to svc.log.1 past 10 MiB, at start and while running). Omit for stdout only. */
  dir?: string;
  /** svc.log is renamed to svc.log.1 past this size (default 10 MiB; tests make it small). */
  rotateBytes?: number;
  /** A level name; unknown or missing means 'info'. */
  level?: string;
  stdout?: { write(line: string): unknown };
}

const LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LoggerLevel = (typeof LEVELS)[number];

/** `log.info('msg')`, `log.info({ key: value }, 'msg')`, `log.info({ key: value })`, `log.error(error, 'msg')`. */
export interface LogFn {
  (msg: string): void;
  (obj: unknown, msg?: string): void;
}

/** The part of pino's Logger the controller uses; createLogger returns a pino logger. */
export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal: LogFn;
  /** The lowest level written (a pino level name). A child takes its parent's level when it is made. */
  level: string;
  /** A pino child logger: its lines carry `bindings` after the parent's, before the call's fields. */
  child(bindings: Record<string, unknown>): Logger;
  /** Destinations are synchronous; kept for callers that flush before exiting. */
  flush(): void;
}

const ROTATE_BYTES = 10 * 1024 * 1024;
/** The keys whose values never reach a log line, at the top level and one level down. */
const REDACTED = ['token', 'password', 'authorization'];
const CENSOR = '[redacted]';

/** Root logger; components take `log.child({ area: 'http' })`. */
export function createLogger(options: LogOptions): Logger {
  const stdout = options.stdout ?? process.stdout;
  const console: DestinationStream =
    options.format === 'json' ? { write: (line: string) => void stdout.write(line) } : prettyStream(stdout, options.colored);
  let destination = console;
  if (options.dir) {
    mkdirSync(options.dir, { recursive: true });
    const file = new LogFile(join(options.dir, 'svc.log'), options.rotateBytes ?? ROTATE_BYTES);
    // Both at the lowest level: the logger's own level decides what is written.
    destination = pino.multistream([
      { level: 'trace', stream: file },
      { level: 'trace', stream: console },
    ]);
  }
  return pino(
    {
      level: levelName(options.level),
      base: null,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: [...REDACTED, ...REDACTED.map((key) => `*.${key}`)], censor: CENSOR },
    },
    destination,
  );
}

/** pino refuses an unknown level name; the controller reads it from the environment, so it means info. */
function levelName(name: string | undefined): LoggerLevel {
  const key = name?.toLowerCase();
  return (LEVELS as readonly string[]).includes(key ?? '') ? (key as LoggerLevel) : 'info';
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLOURS: Record<number, string> = { 10: '90', 20: '90', 30: '36', 40: '33', 50: '31', 60: '35' };
const OMITTED = new Set(['level', 'time', 'msg', 'area', 'pid', 'hostname']);

/**
 * Readable lines, rendered from pino's JSON line: `12:00:01 INFO  [http] listening port=8080`,
 * an `err` as its stack on the next lines. Strings bare, other values as JSON.
 */
function prettyStream(out: { write(line: string): unknown }, colored: boolean): DestinationStream {
  const paint = (code: string, text: string) => (colored ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
      const level = entry.level as number;
      const name = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
      const area = entry.area ? paint('90', `[${entry.area}] `) : '';
      let extras = '';
      for (const [key, value] of Object.entries(entry)) {
        if (OMITTED.has(key)) continue;
        const text = key === 'err' ? formatError(value, entry.msg) : prettyValue(value);
        if (text !== undefined) extras += key === 'err' && text.includes('\n') ? `\n${text}` : ` ${key}=${text}`;
      }
      out.write(`${paint('90', time)} ${paint(LEVEL_COLOURS[level] ?? '0', name)} ${area}${String(entry.msg ?? '')}${extras}\n`);
    },
  };
}

function prettyValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Errors whose message is written for the operator: one line, no stack (svc.log keeps it). */
const EXPECTED_ERRORS = new Set(['ApiError', 'ConfigError', 'CommandFailure', 'UsageError']);

function formatError(err: unknown, msg: unknown): string | undefined {
  if (err && typeof err === 'object' && EXPECTED_ERRORS.has(String((err as { type?: unknown }).type))) {
    const message = String((err as { message?: unknown }).message);
    return message === msg ? undefined : message;
  }
  if (err && typeof err === 'object' && 'stack' in err) return String((err as { stack: unknown }).stack);
  return JSON.stringify(err);
}

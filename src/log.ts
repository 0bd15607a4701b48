import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { LogFile } from './log-file';

/*
 * The controller's logger: a small stand-in for the pino setup it replaced (pino cost ~3-4 MiB
 * resident and start time in the compiled binary for features we did not use). It keeps pino's
 * line format, because tests and operators parse it:
 *
 *   {"level":30,"time":"2024-01-02T03:04:05.678Z",...child bindings,...call fields,"msg":"..."}
 *
 * Level numbers are pino's, there is no pid/hostname, `err` goes through pino's standard error
 * serializer, and the keys token/password/authorization are redacted at the top level and one
 * level down. Everything is written synchronously, so `flush()` has nothing to do.
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

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
export type LevelName = keyof typeof LEVELS;
/** `silent` (as in pino) writes nothing at all. */
export type LoggerLevel = LevelName | 'silent';

/** `log.info('msg')`, `log.info({ key: value }, 'msg')`, `log.info({ key: value })`, `log.error(error, 'msg')`. */
export interface LogFn {
  (msg: string): void;
  (obj: unknown, msg?: string): void;
}

export interface Logger {
  trace: LogFn;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  fatal: LogFn;
  /** The lowest level written. A child takes its parent's level when it is made. */
  level: LoggerLevel;
  /** A logger whose lines carry `bindings` (after the parent's, before the call's fields). */
  child(bindings: Record<string, unknown>): Logger;
  /** Nothing is buffered; kept for callers that flush before exiting. */
  flush(): void;
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLOURS: Record<number, string> = { 10: '90', 20: '90', 30: '36', 40: '33', 50: '31', 60: '35' };
const ROTATE_BYTES = 10 * 1024 * 1024;
const OMITTED = new Set(['level', 'time', 'msg', 'area', 'pid', 'hostname']);
/** What the old `redact.paths` covered: these keys and `*.<key>`. */
const REDACTED = ['token', 'password', 'authorization'];
const CENSOR = '[redacted]';

type Entry = Record<string, unknown>;
type Sink = (entry: Entry, json: () => string) => void;

/** Root logger; components take `log.child({ area: 'http' })`. Secrets are redacted by key. */
export function createLogger(options: LogOptions): Logger {
  const stdout = options.stdout ?? process.stdout;
  const sinks: Sink[] = [];
  if (options.dir) {
    mkdirSync(options.dir, { recursive: true });
    const file = join(options.dir, 'svc.log');
    // Whole lines only, rotated between two of them, and a line saying how many were lost to a full disk.
    const logFile = new LogFile(file, options.rotateBytes ?? ROTATE_BYTES);
    sinks.push((_entry, json) => logFile.write(json()));
  }
  sinks.push(options.format === 'json' ? (_entry, json) => void stdout.write(json()) : prettySink(stdout, options.colored));
  const write = (entry: Entry) => {
    let line: string | undefined;
    const json = () => (line ??= `${toJson(entry) ?? '{}'}\n`);
    for (const sink of sinks) sink(entry, json);
  };
  return new Log(write, {}, threshold(options.level));
}

function threshold(name: string | undefined): number {
  const key = name?.toLowerCase();
  if (key === 'silent') return Infinity;
  return key !== undefined && Object.hasOwn(LEVELS, key) ? LEVELS[key as LevelName] : LEVELS.info;
}

class Log implements Logger {
  constructor(
    private readonly out: (entry: Entry) => void,
    private readonly bindings: Entry,
    private min: number,
  ) {}

  // The level test comes first, so a call below the level builds nothing.
  trace(a: unknown, msg?: string): void {
    if (this.min <= 10) this.write(10, a, msg);
  }
  debug(a: unknown, msg?: string): void {
    if (this.min <= 20) this.write(20, a, msg);
  }
  info(a: unknown, msg?: string): void {
    if (this.min <= 30) this.write(30, a, msg);
  }
  warn(a: unknown, msg?: string): void {
    if (this.min <= 40) this.write(40, a, msg);
  }
  error(a: unknown, msg?: string): void {
    if (this.min <= 50) this.write(50, a, msg);
  }
  fatal(a: unknown, msg?: string): void {
    if (this.min <= 60) this.write(60, a, msg);
  }

  get level(): LoggerLevel {
    if (this.min === Infinity) return 'silent';
    return (Object.keys(LEVELS) as LevelName[]).find((name) => LEVELS[name] === this.min) ?? 'info';
  }
  set level(name: LoggerLevel) {
    this.min = threshold(name);
  }

  child(bindings: Record<string, unknown>): Logger {
    return new Log(this.out, { ...this.bindings, ...bindings }, this.min);
  }

  flush(): void {}

  /** pino's argument rules: an Error is logged as `err` (its message the default msg); an object's fields are merged; anything else is the message. */
  private write(level: number, a: unknown, msg: unknown): void {
    let fields: Entry | undefined;
    if (a instanceof Error) {
      fields = { err: a };
      msg ??= a.message;
    } else if (typeof a === 'object' && a !== null) {
      fields = a as Entry;
      const err = fields.err as { message?: unknown } | undefined;
      if (msg === undefined && fields.msg === undefined && err) msg = err.message;
    } else if (a !== undefined) {
      msg = a;
    }
    // Same keys in bindings and fields: one key, at the binding's place, with the call's value
    // (pino wrote both; JSON.parse keeps the last, so parsed lines are the same).
    const entry: Entry = { level, time: new Date().toISOString(), ...this.bindings, ...fields };
    if (msg !== undefined) {
      delete entry.msg;
      entry.msg = msg;
    }
    if (isErrorLike(entry.err)) entry.err = serializeError(entry.err, new Set());
    redact(entry);
    this.out(entry);
  }
}

/** Top level and one level down, on copies: the caller's objects are never changed. */
function redact(entry: Entry): void {
  for (const key of Object.keys(entry)) {
    const value = entry[key];
    if (value === undefined) continue;
    if (REDACTED.includes(key)) {
      entry[key] = CENSOR;
    } else if (typeof value === 'object' && value !== null && !Array.isArray(value) && REDACTED.some((k) => k in value)) {
      // Same prototype, so a toJSON of the original still applies.
      const copy = Object.assign(Object.create(Object.getPrototypeOf(value)), value);
      for (const k of REDACTED) if (k in value) copy[k] = CENSOR;
      entry[key] = copy;
    }
  }
}

interface ErrorLike {
  message: string;
  stack?: unknown;
  cause?: unknown;
  errors?: unknown;
  name?: unknown;
  constructor?: unknown;
  [key: string]: unknown;
}

function isErrorLike(value: unknown): value is ErrorLike {
  return typeof value === 'object' && value !== null && typeof (value as { message?: unknown }).message === 'string';
}

function causeOf(err: ErrorLike): ErrorLike | undefined {
  return isErrorLike(err.cause) ? err.cause : undefined;
}

/**
 * pino's standard error serializer (pino-std-serializers 7): `type` (constructor name), `message`
 * and `stack` with the `cause` chain folded in ("outer: inner", "...\ncaused by: <inner stack>"),
 * `aggregateErrors` for an AggregateError, then the other enumerable properties (e.g. `code`),
 * nested errors serialised the same way. An error already being serialised becomes "[Circular]".
 */
function serializeError(err: ErrorLike, seen: Set<object>): Entry {
  seen.add(err);
  const out: Entry = {
    type: typeof err.constructor === 'function' ? err.constructor.name : err.name,
    message: messageWithCauses(err, new Set()),
    stack: stackWithCauses(err, new Set()),
  };
  if (Array.isArray(err.errors)) out.aggregateErrors = err.errors.map((e) => nestedError(e, seen));
  for (const key in err) {
    if (out[key] !== undefined) continue;
    const value = err[key];
    if (key === 'cause' && isErrorLike(value)) continue; // already in message and stack
    out[key] = nestedError(value, seen);
  }
  seen.delete(err);
  return out;
}

function nestedError(value: unknown, seen: Set<object>): unknown {
  if (!isErrorLike(value)) return value;
  return seen.has(value) ? '[Circular]' : serializeError(value, seen);
}

function messageWithCauses(err: ErrorLike, seen: Set<object>): string {
  const message = err.message || '';
  if (seen.has(err)) return `${message}: ...`;
  const cause = causeOf(err);
  if (!cause) return message;
  seen.add(err);
  return `${message}: ${messageWithCauses(cause, seen)}`;
}

function stackWithCauses(err: ErrorLike, seen: Set<object>): string {
  const stack = typeof err.stack === 'string' ? err.stack : '';
  if (seen.has(err)) return `${stack}\ncauses have become circular...`;
  const cause = causeOf(err);
  if (!cause) return stack;
  seen.add(err);
  return `${stack}\ncaused by: ${stackWithCauses(cause, seen)}`;
}

/** JSON.stringify that never throws: on failure (BigInt, a cycle, a throwing toJSON) the value is made safe first. */
function toJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return JSON.stringify(safe(value, new Set()));
  }
}

/** A JSON-safe copy: BigInt as a string, a value already being copied (a cycle) as "[Circular]". */
function safe(value: unknown, ancestors: Set<object>): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (ancestors.has(value)) return '[Circular]';
  const toJSON = (value as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') {
    try {
      return safe(toJSON.call(value), ancestors);
    } catch {
      return '[unserializable]';
    }
  }
  ancestors.add(value);
  let copy: unknown;
  if (Array.isArray(value)) {
    copy = value.map((item) => safe(item, ancestors));
  } else {
    const object: Entry = {};
    for (const key of Object.keys(value)) {
      try {
        object[key] = safe((value as Entry)[key], ancestors);
      } catch {
        object[key] = '[unserializable]';
      }
    }
    copy = object;
  }
  ancestors.delete(value);
  return copy;
}

/**
 * Readable lines: `12:00:01 INFO  [http] listening port=8080`, an `err` as its stack on the next
 * lines. Rendered from the entry, as the JSON line would read back: strings bare, other values as
 * JSON, keys JSON would drop (undefined, functions, symbols) left out.
 */
function prettySink(out: { write(line: string): unknown }, colored: boolean): Sink {
  const paint = (code: string, text: string) => (colored ? `\x1b[${code}m${text}\x1b[0m` : text);
  return (entry) => {
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
  };
}

function prettyValue(value: unknown): string | undefined {
  if (typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    const json = toJson(value);
    return json === undefined ? undefined : prettyValue(JSON.parse(json));
  }
  if (typeof value === 'string') return value;
  if (typeof value === 'bigint') return value.toString();
  return toJson(value);
}

/** Errors whose message is written for the operator: one line, no stack (svc.log keeps it). */
const EXPECTED_ERRORS = new Set(['ApiError', 'ConfigError', 'CommandFailure', 'UsageError']);

function formatError(err: unknown, msg: unknown): string | undefined {
  if (err && typeof err === 'object' && EXPECTED_ERRORS.has(String((err as { type?: unknown }).type))) {
    const message = String((err as { message?: unknown }).message);
    return message === msg ? undefined : message;
  }
  if (err && typeof err === 'object' && 'stack' in err) return String((err as { stack: unknown }).stack);
  return toJson(err);
}

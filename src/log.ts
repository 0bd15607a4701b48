import { existsSync, mkdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type DestinationStream, type Logger } from 'pino';

export type { Logger };

export interface LogOptions {
  /** `json` writes one JSON object per line to stdout; `pretty` writes readable lines. */
  format: 'json' | 'pretty';
  colored: boolean;
  /** Folder of svc.log (JSON lines, rotated once at start past 10 MiB). Omit for stdout only. */
  dir?: string;
  level?: string;
  stdout?: { write(line: string): unknown };
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLOURS: Record<number, string> = { 10: '90', 20: '90', 30: '36', 40: '33', 50: '31', 60: '35' };
const ROTATE_BYTES = 10 * 1024 * 1024;
const OMITTED = new Set(['level', 'time', 'msg', 'area', 'pid', 'hostname']);

/** Root logger; components take `log.child({ area: 'http' })`. Secrets are redacted by key. */
export function createLogger(options: LogOptions): Logger {
  const stdout = options.stdout ?? process.stdout;
  const console: DestinationStream =
    options.format === 'json' ? { write: (line) => void stdout.write(line) } : prettyStream(stdout, options.colored);
  const streams: pino.StreamEntry[] = [{ stream: console, level: 'trace' }];
  if (options.dir) {
    mkdirSync(options.dir, { recursive: true });
    const file = join(options.dir, 'svc.log');
    rotateIfLarge(file);
    streams.push({ stream: pino.destination({ dest: file, sync: true }), level: 'trace' });
  }
  return pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['token', '*.token', 'password', '*.password', 'authorization', '*.authorization'], censor: '[redacted]' },
    },
    pino.multistream(streams),
  );
}

function rotateIfLarge(file: string): void {
  if (!existsSync(file)) return;
  if (statSync(file).size < ROTATE_BYTES) return;
  renameSync(file, `${file}.1`);
}

/** Readable lines: `12:00:01 INFO  [http] listening port=8080`. */
function prettyStream(out: { write(line: string): unknown }, colored: boolean): DestinationStream {
  const paint = (code: string, text: string) => (colored ? `\x1b[${code}m${text}\x1b[0m` : text);
  return {
    write(line: string) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line);
      } catch {
        out.write(line);
        return;
      }
      const time = typeof entry.time === 'string' ? entry.time.slice(11, 19) : '';
      const level = entry.level as number;
      const name = (LEVEL_NAMES[level] ?? String(level)).padEnd(5);
      const area = entry.area ? paint('90', `[${entry.area}] `) : '';
      const extras = Object.entries(entry)
        .filter(([k]) => !OMITTED.has(k))
        .map(([k, v]) => (k === 'err' ? `\n${formatError(v)}` : ` ${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`))
        .join('');
      out.write(`${paint('90', time)} ${paint(LEVEL_COLOURS[level] ?? '0', name)} ${area}${String(entry.msg ?? '')}${extras}\n`);
    },
  };
}

function formatError(err: unknown): string {
  if (err && typeof err === 'object' && 'stack' in err) return String((err as { stack: unknown }).stack);
  return JSON.stringify(err);
}

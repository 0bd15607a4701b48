import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { MetricsRegistry, Sample } from './registry';

/**
 * The controller process's own figures under the names every Prometheus client library uses
 * (`process_*`), so stock dashboards and alerts work unchanged. All are read when scraped.
 * CPU, resident memory and start time come from the runtime on every OS; virtual memory,
 * open and maximum file descriptors from `/proc/self` and exist only where it does (Linux).
 * `procRoot` is for tests.
 */
export function registerProcessSeries(metrics: MetricsRegistry, procRoot = '/proc/self'): void {
  metrics.counter('process_cpu_seconds_total', 'user and system CPU time spent by the controller process, in seconds', () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  });
  metrics.gauge('process_resident_memory_bytes', 'resident memory size of the controller process, in bytes', () => process.memoryUsage.rss());
  metrics.gauge('process_start_time_seconds', 'start time of the controller process since the Unix epoch, in seconds', () => processStartSeconds());

  if (!existsSync(`${procRoot}/stat`)) return;
  metrics.gauge('process_virtual_memory_bytes', 'virtual memory size of the controller process, in bytes', () => orNone(() => virtualMemoryBytes(readFileSync(`${procRoot}/stat`, 'utf8'))));
  metrics.gauge('process_open_fds', 'open file descriptors of the controller process', () => orNone(() => readdirSync(`${procRoot}/fd`).length));
  metrics.gauge('process_max_fds', 'the soft limit on open file descriptors of the controller process', () => orNone(() => maxOpenFiles(readFileSync(`${procRoot}/limits`, 'utf8'))));
}

/** When this process started (the runtime's time origin), in seconds since the epoch. */
export function processStartSeconds(): number {
  return Math.round(performance.timeOrigin) / 1000;
}

/** A sample, or no sample where the figure cannot be read (a file gone, a format not understood). */
function orNone(read: () => number | undefined): Sample[] {
  try {
    const value = read();
    return value === undefined || !Number.isFinite(value) ? [] : [{ value }];
  } catch {
    return [];
  }
}

/**
 * `vsize` (field 23, bytes) of `/proc/<pid>/stat`. Fields are counted after the command name,
 * which is in parentheses and may itself hold spaces and parentheses: the last `)` ends it.
 */
export function virtualMemoryBytes(stat: string): number | undefined {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state), so field 23 is fields[20].
  const vsize = Number(fields[20]);
  return Number.isFinite(vsize) ? vsize : undefined;
}

/** The soft limit of the `Max open files` row of `/proc/<pid>/limits`; undefined when unlimited. */
export function maxOpenFiles(limits: string): number | undefined {
  const match = /^Max open files\s+(\S+)/m.exec(limits);
  if (!match || match[1] === 'unlimited') return undefined;
  const soft = Number(match[1]);
  return Number.isFinite(soft) ? soft : undefined;
}

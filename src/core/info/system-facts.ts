import { readFileSync } from 'node:fs';
import { Type, type Static } from '@sinclair/typebox';
import { arch, cpus, freemem, hostname, loadavg, release, totalmem, type as osType } from 'node:os';

export const SystemFactsSchema = Type.Object({
  hostname: Type.String(),
  osName: Type.String(),
  osVersion: Type.String(),
  osArch: Type.String(),
  cpuModel: Type.String(),
  availableProcessors: Type.Integer(),
  systemCpuLoad: Type.Number({ description: '0..1 over the time since the previous reading' }),
  processCpuLoad: Type.Number({ description: 'this process, 0..1 of the whole machine, over the time since the previous reading; -1 where it is not reported (agent nodes)' }),
  systemMemoryUsedMb: Type.Integer(),
  systemMemoryTotalMb: Type.Integer(),
  runtimeVersion: Type.String(),
  runtimeVendor: Type.String(),
});
export type SystemFacts = Static<typeof SystemFactsSchema>;

/**
 * The existing dashboard's "Java" row reads `javaVersion`/`javaVendor` (the reference runs on a
 * JVM). A Bun controller answers with its runtime's figures under those names, beside our own.
 */
const RuntimeAliasesSchema = Type.Object({
  javaVersion: Type.String({ description: 'the runtime version under the name the dashboard reads (same as runtimeVersion)' }),
  javaVendor: Type.String({ description: 'the runtime vendor under the name the dashboard reads (same as runtimeVendor)' }),
});
/** System facts as the API shows them: ours plus the dashboard's names for the runtime. */
export const SystemInfoSchema = Type.Composite([SystemFactsSchema, RuntimeAliasesSchema]);
export type SystemInfo = Static<typeof SystemInfoSchema>;

export function withRuntimeAliases<F extends Pick<SystemFacts, 'runtimeVersion' | 'runtimeVendor'>>(facts: F): F & Static<typeof RuntimeAliasesSchema> {
  return { ...facts, javaVersion: facts.runtimeVersion, javaVendor: facts.runtimeVendor };
}

/** Busy and total jiffies of all CPUs from /proc/stat; null off Linux. */
function procStat(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/**
 * The machine and this process, as `/api/controller/info` shows them. CPU loads are deltas
 * between readings (the first reading covers the time since start), so a dashboard polling
 * every few seconds sees the load of those seconds, not a lifetime average.
 */
export class SystemSampler {
  private lastStat = procStat();
  private lastCpu = process.cpuUsage();
  private lastAt = performance.now();

  read(): SystemFacts {
    const cores = Math.max(1, cpus().length);
    const stat = procStat();
    let systemCpuLoad = Math.min(1, (loadavg()[0] ?? 0) / cores);
    if (stat && this.lastStat && stat.total > this.lastStat.total) systemCpuLoad = (stat.busy - this.lastStat.busy) / (stat.total - this.lastStat.total);
    const cpu = process.cpuUsage(this.lastCpu);
    const elapsedUs = Math.max(1, (performance.now() - this.lastAt) * 1000);
    const processCpuLoad = Math.min(1, (cpu.user + cpu.system) / elapsedUs / cores);
    this.lastStat = stat;
    this.lastCpu = process.cpuUsage();
    this.lastAt = performance.now();
    return {
      hostname: hostname(),
      osName: osType(),
      osVersion: release(),
      osArch: arch(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      availableProcessors: cores,
      systemCpuLoad: round(systemCpuLoad),
      processCpuLoad: round(processCpuLoad),
      systemMemoryUsedMb: Math.round((totalmem() - freemem()) / 1048576),
      systemMemoryTotalMb: Math.round(totalmem() / 1048576),
      runtimeVersion: `Bun ${Bun.version}`,
      runtimeVendor: 'Oven',
    };
  }
}

const round = (n: number) => Math.round(Math.max(0, n) * 10000) / 10000;

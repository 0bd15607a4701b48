import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { totalmem } from 'node:os';

const MB = 1048576;

/** The controller's own memory under the JVM names the dashboard reads (`jvmMemory*Mb`). */
export interface RuntimeMemory {
  /** Resident memory of this process: what the controller really occupies. */
  usedMb: number;
  /** The JavaScript heap the runtime has committed. */
  allocatedMb: number;
  /**
   * What this process may grow to. Bun has no fixed heap ceiling like a JVM's -Xmx, so the
   * bound is the cgroup memory limit the process runs under (systemd `MemoryMax=`, a container
   * limit) when there is one, else the machine's memory.
   */
  maxMb: number;
}

export function runtimeMemory(): RuntimeMemory {
  const usage = process.memoryUsage();
  return { usedMb: Math.round(usage.rss / MB), allocatedMb: Math.round(usage.heapTotal / MB), maxMb: Math.round(memoryCeilingBytes() / MB) };
}

/** The cgroup v2 `memory.max` of this process when it is a number, else the machine's total memory. */
export function memoryCeilingBytes(procRoot = '/proc', cgroupRoot = '/sys/fs/cgroup'): number {
  const machine = totalmem();
  try {
    // cgroup v2: one line "0::/system.slice/svc.service".
    const line = readFileSync(join(procRoot, 'self', 'cgroup'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('0::'));
    if (!line) return machine;
    const limit = readFileSync(join(cgroupRoot, line.slice(3).trim(), 'memory.max'), 'utf8').trim();
    const bytes = Number(limit);
    return Number.isFinite(bytes) && bytes > 0 ? Math.min(bytes, machine) : machine;
  } catch {
    return machine;
  }
}

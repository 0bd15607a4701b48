import { ACTIVE_STATES } from '../services/lifecycle';
import type { ServiceRecord } from '../services/registry';

/** What this machine may run at once: `[controller] max_services` and `max_memory` (MB). */
export interface MachineLimits {
  maxServices: number;
  maxMemoryMb: number;
}

/** What the services of this machine hold now; warm-pool instances count like any other. */
export interface MachineUsage {
  services: number;
  memoryMb: number;
}

export function machineUsage(records: Iterable<Pick<ServiceRecord, 'state' | 'memoryMaxMb'>>): MachineUsage {
  let services = 0;
  let memoryMb = 0;
  for (const record of records) {
    if (!ACTIVE_STATES.has(record.state)) continue;
    services++;
    memoryMb += record.memoryMaxMb;
  }
  return { services, memoryMb };
}

/**
 * Why one more service needing `memoryMb` does not fit on this machine, or null when it does.
 * The reason names the limit and the figures, so an operator knows which key to raise.
 */
export function placementProblem(limits: MachineLimits, usage: MachineUsage, memoryMb: number): string | null {
  if (usage.services >= limits.maxServices) {
    return `max_services reached: ${usage.services} of ${limits.maxServices} services run on this machine ([controller] max_services)`;
  }
  if (usage.memoryMb + memoryMb > limits.maxMemoryMb) {
    return `max_memory reached: ${usage.memoryMb} MB in use + ${memoryMb} MB needed > ${limits.maxMemoryMb} MB ([controller] max_memory)`;
  }
  return null;
}

/** How many more services needing `memoryMb` each fit (bounded by `want`), and why the next one would not. */
export function placementRoom(limits: MachineLimits, usage: MachineUsage, memoryMb: number, want: number): { fits: number; placement: string } {
  let fits = 0;
  let problem = placementProblem(limits, usage, memoryMb);
  while (problem === null && fits < want) {
    fits++;
    problem = placementProblem(limits, { services: usage.services + fits, memoryMb: usage.memoryMb + fits * memoryMb }, memoryMb);
  }
  return { fits, placement: problem ?? '' };
}

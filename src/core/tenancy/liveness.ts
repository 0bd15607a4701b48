import { ACTIVE_STATES } from '../services/lifecycle';
import type { ServiceRegistry } from '../services/registry';

/** Whether the named service holds (or is about to hold, or is ending) a process: its credential counts only then. */
export function isActiveService(registry: Pick<ServiceRegistry, 'get'>, name: string): boolean {
  const record = registry.get(name);
  return record !== undefined && ACTIVE_STATES.has(record.state);
}

import { REUSABLE_STATES, type ServiceState } from './lifecycle';

/**
 * The name of a new instance of a group: `<Group>-<N>`, reusing the lowest slot whose service
 * is STOPPED or CRASHED, else the lowest N no service of the group uses. Pure; the caller holds
 * the group's lock so two starts never pick the same name.
 */
export function nextInstanceName(group: string, existing: readonly { name: string; state: ServiceState }[]): { name: string; reuses: string | null } {
  const prefix = `${group}-`;
  const slots = new Map<number, ServiceState>();
  for (const service of existing) {
    if (!service.name.startsWith(prefix)) continue;
    const n = Number(service.name.slice(prefix.length));
    if (Number.isInteger(n) && n > 0) slots.set(n, service.state);
  }
  const reusable = [...slots].filter(([, state]) => REUSABLE_STATES.has(state)).map(([n]) => n);
  if (reusable.length > 0) {
    const n = Math.min(...reusable);
    return { name: `${prefix}${n}`, reuses: `${prefix}${n}` };
  }
  let n = 1;
  while (slots.has(n)) n++;
  return { name: `${prefix}${n}`, reuses: null };
}

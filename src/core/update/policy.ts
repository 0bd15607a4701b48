import type { UpdateType } from '../info/update-check';

export type AutoUpdateMode = 'off' | 'patch' | 'minor';

/**
 * Whether `[controller] auto_update` lets the controller apply an update of `type` on its own.
 * A major release changes what operators rely on, so it always waits for a person.
 */
export function appliesAutomatically(mode: AutoUpdateMode, type: UpdateType | null): boolean {
  if (type === null || type === 'MAJOR') return false;
  if (mode === 'minor') return true;
  return mode === 'patch' && type === 'PATCH';
}

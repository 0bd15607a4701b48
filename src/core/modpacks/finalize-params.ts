import { ApiError } from '../../errors';
import type { AnyFinalizeBody, DedicatedFinalizeBody, FinalizeBody } from './model';

export type FinalizeChoice = { kind: 'group'; params: FinalizeBody } | { kind: 'dedicated'; params: DedicatedFinalizeBody };

const GROUP_ONLY = ['type', 'minInstances', 'maxInstances', 'modloaderVersion'] as const;
const DEDICATED_ONLY = ['port', 'proxyEnabled'] as const;

const invalid = (message: string) => new ApiError('VALIDATION_FAILED', message);

/**
 * What POST /api/modpacks/upload/finalize is asked to make, by which parameters are present:
 * `groupName` → a new group (groupName, type, memory, minInstances, maxInstances); `name` → a
 * new dedicated service (name, port, memory, proxyEnabled), which is what the dashboard's
 * dedicated page sends there. Both names, neither, or a field of the other kind is
 * VALIDATION_FAILED naming it. `where` names where the parameters came from, for messages.
 */
export function finalizeChoiceOf(input: AnyFinalizeBody, where: 'body field' | 'query parameter'): FinalizeChoice {
  const { groupName, name, type, minInstances, maxInstances, modloaderVersion, port, proxyEnabled, ...shared } = input;
  if (groupName !== undefined && name !== undefined) {
    throw invalid(`${where} "groupName" (a new group) and "name" (a new dedicated service) cannot both be given: send one`);
  }
  if (groupName !== undefined) {
    const foreign = DEDICATED_ONLY.find((k) => input[k] !== undefined);
    if (foreign) throw invalid(`${where} "${foreign}" is for a dedicated service, but "groupName" finalizes into a group`);
    return { kind: 'group', params: { ...shared, groupName, type, minInstances, maxInstances, modloaderVersion } };
  }
  if (name !== undefined) {
    const foreign = GROUP_ONLY.find((k) => input[k] !== undefined);
    if (foreign) throw invalid(`${where} "${foreign}" is for a group, but "name" finalizes into a dedicated service`);
    if (port === undefined) throw invalid(`${where} "port" is required to finalize into a dedicated service (name, port, memory, proxyEnabled)`);
    return { kind: 'dedicated', params: { ...shared, name, port, proxyEnabled } };
  }
  throw invalid(`${where} "groupName" is required (a new group), or "name" and "port" (a new dedicated service)`);
}

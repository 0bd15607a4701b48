import { describe, expect, test } from 'bun:test';
import { intoDedicated, intoNewDedicated, intoNewGroup, targetName } from '../../../src/core/modpacks/targets';

describe('modpack targets: where an import puts the pack, whichever path it came by', () => {
  test('a new group takes only the group fields of a request', () => {
    const request = { source: 'modrinth', projectId: 'x', uploadId: 'u', groupName: 'Skyblock', type: 'DYNAMIC' as const, memory: '6G', minInstances: 1, maxInstances: 3 };
    const target = intoNewGroup(request);
    expect(target).toEqual({ kind: 'group', group: { groupName: 'Skyblock', type: 'DYNAMIC', memory: '6G', minInstances: 1, maxInstances: 3 } });
    expect(targetName(target)).toBe('Skyblock');
  });

  test('a new dedicated service takes only name, port, memory and proxyEnabled', () => {
    const target = intoNewDedicated({ name: 'Survival', port: 25570, proxyEnabled: false, ...{ uploadId: 'u', software: 'FABRIC' } });
    expect(target).toEqual({ kind: 'dedicated', dedicated: { name: 'Survival', port: 25570, memory: undefined, proxyEnabled: false } });
    expect(targetName(target)).toBe('Survival');
  });

  test('an existing dedicated service empties mods/ unless replaceMods is false', () => {
    expect(intoDedicated('Survival', undefined)).toEqual({ kind: 'dedicated-update', name: 'Survival', replaceMods: true });
    expect(intoDedicated('Survival', false)).toEqual({ kind: 'dedicated-update', name: 'Survival', replaceMods: false });
    expect(targetName(intoDedicated('Survival', true))).toBe('Survival');
  });
});

import { describe, expect, test } from 'bun:test';
import { groupFromServiceName, serviceGroupLabel } from '../../../src/core/metrics/core-series';

describe('groupFromServiceName', () => {
  test.each([
    ['Lobby-1', 'Lobby'],
    ['Lobby-10', 'Lobby'],
    ['Bed-Wars-12', 'Bed-Wars'],
    ['Lobby-2-3', 'Lobby-2'],
    ['Game_x-007', 'Game_x'],
    ['Lobby', 'Lobby'],
    ['Lobby-', 'Lobby-'],
    ['Lobby-abc', 'Lobby-abc'],
    ['Lobby-1a', 'Lobby-1a'],
    ['Lobby1', 'Lobby1'],
    ['-7', '-7'],
    ['', ''],
  ])('%p → %p', (service, group) => {
    expect(groupFromServiceName(service)).toBe(group);
  });
});

describe('serviceGroupLabel', () => {
  test.each([
    ['a known service: its record', 'Lobby-1', { group: 'Hub', isDedicated: false }, 'Hub'],
    ['a dedicated service: its own name', 'Survival-2', { group: 'Survival', isDedicated: true }, 'Survival-2'],
    ['a dedicated service without a group', 'Creative', { group: '', isDedicated: true }, 'Creative'],
    ['a record with no group: the name says', 'Lobby-4', { group: '', isDedicated: false }, 'Lobby'],
    ['an unknown service: the name says', 'BedWars-3', undefined, 'BedWars'],
    ['an unknown odd name: itself', 'standalone', undefined, 'standalone'],
  ] as const)('%s', (_what, service, record, group) => {
    expect(serviceGroupLabel(service, record)).toBe(group);
  });
});

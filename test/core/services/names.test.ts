import { describe, expect, test } from 'bun:test';
import type { ServiceState } from '../../../src/core/services/lifecycle';
import { nextInstanceName } from '../../../src/core/services/names';

const s = (name: string, state: ServiceState) => ({ name, state });

describe('nextInstanceName', () => {
  test.each([
    ['first instance', [], 'Lobby-1', null],
    ['next free number', [s('Lobby-1', 'READY'), s('Lobby-2', 'STARTING')], 'Lobby-3', null],
    ['a gap is filled', [s('Lobby-1', 'READY'), s('Lobby-3', 'READY')], 'Lobby-2', null],
    ['the lowest crashed slot is reused', [s('Lobby-1', 'READY'), s('Lobby-2', 'CRASHED'), s('Lobby-4', 'STOPPED')], 'Lobby-2', 'Lobby-2'],
    ['reuse wins over a gap', [s('Lobby-2', 'READY'), s('Lobby-3', 'STOPPED')], 'Lobby-3', 'Lobby-3'],
    ['other groups and odd names are ignored', [s('LobbyX-1', 'READY'), s('Lobby-abc', 'READY'), s('Lobby-0', 'READY'), s('Game-1', 'CRASHED')], 'Lobby-1', null],
  ] as const)('%s', (_name, existing, expected, reuses) => {
    expect(nextInstanceName('Lobby', existing)).toEqual({ name: expected, reuses });
  });
});

import { describe, expect, test } from 'bun:test';
import { describeScope, parseDuration, parseScope, scopeView, type ScopeInput } from '../../../src/modules/perms/scope';
import type { Scope } from '../../../src/modules/perms/types';
import { expectApiError } from './builders';

const NOW = Date.parse('2026-06-01T12:00:00Z');

describe('parseScope', () => {
  const accepted: [string, ScopeInput, Scope][] = [
    ['nothing given', {}, { server: '', world: '', expiresAt: null }],
    ['nulls', { server: null, world: null, expiresAt: null }, { server: '', world: '', expiresAt: null }],
    ['blanks', { server: '', world: '   ', expiresAt: '' }, { server: '', world: '', expiresAt: null }],
    ['a server, trimmed, case kept', { server: '  Lobby-1 ' }, { server: 'Lobby-1', world: '', expiresAt: null }],
    ['a world', { world: 'world_nether' }, { server: '', world: 'world_nether', expiresAt: null }],
    ['names with . and :', { server: 'eu.lobby:1', world: 'a.b' }, { server: 'eu.lobby:1', world: 'a.b', expiresAt: null }],
    ['a 128-character name', { server: 's'.repeat(128) }, { server: 's'.repeat(128), world: '', expiresAt: null }],
    ['an ISO time with Z', { expiresAt: '2026-12-31T23:59:00Z' }, { server: '', world: '', expiresAt: Date.parse('2026-12-31T23:59:00Z') }],
    ['an ISO time with an offset', { expiresAt: '2026-06-01T14:00:01+02:00' }, { server: '', world: '', expiresAt: NOW + 1000 }],
    ['an ISO time with milliseconds', { expiresAt: '2026-06-01T12:00:00.001Z' }, { server: '', world: '', expiresAt: NOW + 1 }],
    ['epoch ms one ms ahead', { expiresAt: NOW + 1 }, { server: '', world: '', expiresAt: NOW + 1 }],
    ['all three', { server: 'Lobby-1', world: 'nether', expiresAt: NOW + 60_000 }, { server: 'Lobby-1', world: 'nether', expiresAt: NOW + 60_000 }],
  ];
  test.each(accepted)('%s', (_name, input, expected) => {
    expect(parseScope(input, NOW)).toEqual(expected);
  });

  const refused: [string, ScopeInput, string][] = [
    ['a server with a space', { server: 'Lobby 1' }, 'server "Lobby 1" is not a server name'],
    ['a server with a slash', { server: 'a/b' }, 'is not a server name'],
    ['a world with a non-ASCII letter', { world: 'wörld' }, 'world "wörld" is not a world name'],
    ['a 129-character name', { world: 'w'.repeat(129) }, 'is not a world name'],
    ['an expiry that is no time', { expiresAt: 'tomorrow' }, 'is not an ISO-8601 time'],
    ['an expiry that is not finite', { expiresAt: Number.NaN }, 'is not an ISO-8601 time'],
    ['an expiry in the past', { expiresAt: '2020-01-01T00:00:00Z' }, 'is not in the future'],
    ['an expiry equal to now (ISO)', { expiresAt: '2026-06-01T12:00:00Z' }, 'is not in the future'],
    ['an expiry equal to now (ms)', { expiresAt: NOW }, 'is not in the future'],
    ['an expiry one ms ago', { expiresAt: NOW - 1 }, 'is not in the future'],
  ];
  test.each(refused)('%s → VALIDATION_FAILED', (_name, input, message) => {
    const error = expectApiError(() => parseScope(input, NOW), 'VALIDATION_FAILED');
    expect(error.status).toBe(400);
    expect(error.message).toContain(message);
  });
});

describe('parseDuration', () => {
  const cases: [string, number | undefined][] = [
    ['30s', 30_000],
    ['30m', 1_800_000],
    ['12h', 43_200_000],
    ['7d', 604_800_000],
    ['2w', 1_209_600_000],
    ['1d12h', 129_600_000],
    ['1w2d3h4m5s', 604_800_000 + 2 * 86_400_000 + 3 * 3_600_000 + 4 * 60_000 + 5000],
    ['1H30M', 5_400_000],
    ['0s', undefined],
    ['0d0h', undefined],
    ['', undefined],
    ['5', undefined],
    ['d', undefined],
    ['1x', undefined],
    ['1.5h', undefined],
    ['-1d', undefined],
    [' 1d', undefined],
    ['1d ', undefined],
    ['1d 2h', undefined],
    ['99999999999999999w', undefined],
  ];
  test.each(cases)('%p → %p', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });
});

describe('scopeView and describeScope', () => {
  const at = Date.parse('2026-12-31T23:59:00Z');
  const cases: [Scope, ReturnType<typeof scopeView>, string][] = [
    [{ server: '', world: '', expiresAt: null }, {}, ''],
    [{ server: 'Lobby-1', world: '', expiresAt: null }, { server: 'Lobby-1' }, 'server=Lobby-1'],
    [{ server: '', world: 'nether', expiresAt: null }, { world: 'nether' }, 'world=nether'],
    [{ server: '', world: '', expiresAt: at }, { expiresAt: '2026-12-31T23:59:00.000Z' }, 'until 2026-12-31T23:59:00.000Z'],
    [{ server: 'Lobby-1', world: 'nether', expiresAt: at }, { server: 'Lobby-1', world: 'nether', expiresAt: '2026-12-31T23:59:00.000Z' }, 'server=Lobby-1 world=nether until 2026-12-31T23:59:00.000Z'],
  ];
  test.each(cases)('%o', (scope, view, described) => {
    expect(scopeView(scope)).toEqual(view);
    expect(describeScope(scope)).toBe(described);
  });

  test('a view parses back to the same scope', () => {
    const scope: Scope = { server: 'Lobby-1', world: 'nether', expiresAt: at };
    expect(parseScope(scopeView(scope), NOW)).toEqual(scope);
  });
});

import { describe, expect, test } from 'bun:test';
import { Roster, type ProxyPlayerEvent } from '../../../src/core/players/roster';

const A = 'aaaaaaaa-0000-0000-0000-000000000001';
const B = 'bbbbbbbb-0000-0000-0000-000000000002';
const connect = (player: string, uuid: string, service: string): ProxyPlayerEvent => ({ type: 'PLAYER_CONNECTED', player, uuid, service });
const leave = (player: string, uuid: string, service: string): ProxyPlayerEvent => ({ type: 'PLAYER_DISCONNECTED', player, uuid, service });
const move = (player: string, uuid: string, from: string, to: string): ProxyPlayerEvent => ({ type: 'PLAYER_SERVER_SWITCH', player, uuid, from, to });

describe('Roster: how each bridge event moves service counts', () => {
  // [description, events before, the event, expected deltas]
  const table: [string, ProxyPlayerEvent[], ProxyPlayerEvent, { service: string; delta: number }[]][] = [
    ['a connect adds one to its service', [], connect('Alice', A, 'Lobby-1'), [{ service: 'Lobby-1', delta: 1 }]],
    ['a repeated connect moves nothing', [connect('Alice', A, 'Lobby-1')], connect('Alice', A, 'Lobby-1'), []],
    ['a connect to another service is a missed switch', [connect('Alice', A, 'Lobby-1')], connect('Alice', A, 'Game-1'), [{ service: 'Lobby-1', delta: -1 }, { service: 'Game-1', delta: 1 }]],
    ['a connect not yet placed on a backend counts nowhere', [], connect('Alice', A, ''), []],
    ['a switch moves one from the old to the new service', [connect('Alice', A, 'Lobby-1')], move('Alice', A, 'Lobby-1', 'Game-1'), [{ service: 'Lobby-1', delta: -1 }, { service: 'Game-1', delta: 1 }]],
    ['a repeated switch moves nothing', [connect('Alice', A, 'Lobby-1'), move('Alice', A, 'Lobby-1', 'Game-1')], move('Alice', A, 'Lobby-1', 'Game-1'), []],
    ['a switch of a player joined before this controller trusts the event', [], move('Alice', A, 'Lobby-1', 'Game-1'), [{ service: 'Lobby-1', delta: -1 }, { service: 'Game-1', delta: 1 }]],
    ['a switch takes from where the roster put the player', [connect('Alice', A, 'Lobby-2')], move('Alice', A, 'Lobby-1', 'Game-1'), [{ service: 'Lobby-2', delta: -1 }, { service: 'Game-1', delta: 1 }]],
    ['a disconnect takes one away', [connect('Alice', A, 'Lobby-1')], leave('Alice', A, 'Lobby-1'), [{ service: 'Lobby-1', delta: -1 }]],
    ['a repeated disconnect moves nothing', [connect('Alice', A, 'Lobby-1'), leave('Alice', A, 'Lobby-1')], leave('Alice', A, 'Lobby-1'), []],
    ['a disconnect of a player joined before this controller takes one from the named service', [], leave('Alice', A, 'Lobby-1'), [{ service: 'Lobby-1', delta: -1 }]],
  ];
  test.each(table)('%s', (_what, before, event, deltas) => {
    const roster = new Roster(() => 1000);
    for (const e of before) roster.apply(e);
    expect(roster.apply(event)).toEqual(deltas);
  });
});

describe('Roster: who is online', () => {
  test('the proxy that reported a connect carries the player through a switch; a connect without one keeps the one known', () => {
    const roster = new Roster(() => 5);
    roster.apply({ type: 'PLAYER_CONNECTED', player: 'Alice', uuid: A, service: 'Lobby-1', proxy: 'Proxy-1' });
    expect(roster.get(A)?.proxy).toBe('Proxy-1');
    roster.apply({ type: 'PLAYER_SERVER_SWITCH', player: 'Alice', uuid: A, from: 'Lobby-1', to: 'Game-1' });
    expect(roster.get(A)).toMatchObject({ service: 'Game-1', proxy: 'Proxy-1' });
    roster.apply(connect('Alice', A, 'Game-1'));
    expect(roster.get(A)?.proxy).toBe('Proxy-1');
    roster.apply({ type: 'PLAYER_CONNECTED', player: 'Alice', uuid: A, service: 'Game-1', proxy: 'Proxy-2' });
    expect(roster.get(A)?.proxy).toBe('Proxy-2');
    roster.apply(connect('Bob', B, 'Lobby-1'));
    expect(roster.get(B)?.proxy).toBe('');
  });


  test('names are case-insensitive, and only a player seen leaving is known offline', () => {
    const roster = new Roster(() => 5);
    expect(roster.knownOffline('Alice')).toBe(false);
    roster.apply(connect('Alice', A, 'Lobby-1'));
    expect(roster.byName('alice')).toEqual({ name: 'Alice', uuid: A, service: 'Lobby-1', since: 5, proxy: '' });
    expect(roster.knownOffline('ALICE')).toBe(false);
    roster.apply(leave('Alice', A, 'Lobby-1'));
    expect(roster.byName('Alice')).toBeUndefined();
    expect(roster.knownOffline('alice')).toBe(true);
    roster.apply(connect('Alice', A, 'Lobby-2'));
    expect(roster.knownOffline('Alice')).toBe(false);
  });

  test('a switch keeps the time of the connect; clear gives back every count', () => {
    let now = 10;
    const roster = new Roster(() => now);
    roster.apply(connect('Alice', A, 'Lobby-1'));
    roster.apply(connect('Bob', B, 'Lobby-1'));
    now = 20;
    roster.apply(move('Alice', A, 'Lobby-1', 'Game-1'));
    expect(roster.get(A)?.since).toBe(10);
    expect(roster.clear().sort((x, y) => x.service.localeCompare(y.service))).toEqual([
      { service: 'Game-1', delta: -1 },
      { service: 'Lobby-1', delta: -1 },
    ]);
    expect(roster.size).toBe(0);
    expect(roster.knownOffline('bob')).toBe(true);
  });
});

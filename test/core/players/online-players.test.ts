import { describe, expect, test } from 'bun:test';
import { listOnlinePlayers, type Ping } from '../../../src/core/players/online-players';
import { Roster } from '../../../src/core/players/roster';
import { newRecord } from '../../../src/core/services/registry';

const backend = (name: string, port: number) => ({ ...newRecord({ name, group: name.split('-')[0]!, port, workDir: '/tmp', isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 }), state: 'READY' as const });
const ALICE = '0a0a0a0a-0000-0000-0000-00000000000a';
const BOB = '0b0b0b0b-0000-0000-0000-00000000000b';

/** Statuses by port, as servers would answer; port 3 refuses. */
const ping: Ping = async (_host, port) => {
  if (port === 3) throw new Error('connection refused');
  const samples: Record<number, { name: string; id: string }[]> = {
    1: [{ name: 'Alice', id: ALICE.replace(/-/g, '') }, { name: 'Anonymous Player', id: '00000000-0000-0000-0000-000000000000' }],
    2: [{ name: 'Bob', id: BOB.toUpperCase() }],
  };
  return { version: { name: '1.21.4', protocol: 769 }, players: { online: port === 1 ? 30 : 1, max: 50, sample: samples[port] }, description: 'x' };
};

describe('listOnlinePlayers', () => {
  test('merges status samples with the roster by uuid; a ping is newer and decides the service', async () => {
    const roster = new Roster(() => 0);
    roster.apply({ type: 'PLAYER_CONNECTED', player: 'Bob', uuid: BOB, service: 'Lobby-1' });
    roster.apply({ type: 'PLAYER_CONNECTED', player: 'Carol', uuid: '0c0c0c0c-0000-0000-0000-00000000000c', service: 'Game-9' });
    const observed: [string, number][] = [];
    const listing = await listOnlinePlayers([backend('Lobby-1', 1), backend('Lobby-2', 2), backend('Game-1', 3)], roster, ping, {
      observe: (service, online) => observed.push([service, online]),
      groupOf: (service) => (service === 'Game-9' ? 'Game' : undefined),
    });
    expect(listing.players).toEqual([
      { name: 'Alice', uuid: ALICE, service: 'Lobby-1', group: 'Lobby', source: 'ping' },
      { name: 'Bob', uuid: BOB, service: 'Lobby-2', group: 'Lobby', source: 'both' },
      { name: 'Carol', uuid: '0c0c0c0c-0000-0000-0000-00000000000c', service: 'Game-9', group: 'Game', source: 'roster' },
    ]);
    expect(listing.total).toBe(3);
    // Servers report more than their samples list.
    expect(listing.online).toBe(31);
    expect(listing.services).toEqual([
      { service: 'Lobby-1', group: 'Lobby', reachable: true, online: 30, max: 50 },
      { service: 'Lobby-2', group: 'Lobby', reachable: true, online: 1, max: 50 },
      { service: 'Game-1', group: 'Game', reachable: false, online: 0, max: 0, error: 'connection refused' },
    ]);
    expect(observed).toEqual([
      ['Lobby-1', 30],
      ['Lobby-2', 1],
    ]);
  });
});

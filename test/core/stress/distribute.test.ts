import { describe, expect, test } from 'bun:test';
import { distribute, perServiceText } from '../../../src/core/stress/distribute';

interface Row {
  name: string;
  target: number;
  services: string[];
  max: number;
  caps?: Record<string, number>;
  players: number[];
  simulated: number;
  capacity: number;
  overflow: number;
}

const rows: Row[] = [
  { name: 'even split', target: 90, services: ['A-1', 'A-2', 'A-3'], max: 50, players: [30, 30, 30], simulated: 90, capacity: 150, overflow: 0 },
  { name: 'remainder to the first services', target: 11, services: ['A-1', 'A-2', 'A-3'], max: 50, players: [4, 4, 3], simulated: 11, capacity: 150, overflow: 0 },
  { name: 'one service takes everything that fits', target: 7, services: ['A-1'], max: 50, players: [7], simulated: 7, capacity: 50, overflow: 0 },
  { name: 'fewer players than services', target: 2, services: ['A-1', 'A-2', 'A-3'], max: 50, players: [1, 1, 0], simulated: 2, capacity: 150, overflow: 0 },
  { name: 'exactly full', target: 100, services: ['A-1', 'A-2'], max: 50, players: [50, 50], simulated: 100, capacity: 100, overflow: 0 },
  { name: 'capped at maxPlayers, the rest overflows', target: 130, services: ['A-1', 'A-2'], max: 50, players: [50, 50], simulated: 100, capacity: 100, overflow: 30 },
  { name: 'caps differ: the excess spills into services with room', target: 90, services: ['A-1', 'A-2', 'A-3'], max: 50, caps: { 'A-1': 10 }, players: [10, 50, 30], simulated: 90, capacity: 110, overflow: 0 },
  { name: 'spill in order', target: 60, services: ['A-1', 'A-2', 'A-3'], max: 50, caps: { 'A-1': 5, 'A-2': 12 }, players: [5, 12, 43], simulated: 60, capacity: 67, overflow: 0 },
  { name: 'spill until everything is full, then overflow', target: 60, services: ['A-1', 'A-2'], max: 50, caps: { 'A-1': 5 }, players: [5, 50], simulated: 55, capacity: 55, overflow: 5 },
  { name: 'no services: everything overflows', target: 40, services: [], max: 50, players: [], simulated: 0, capacity: 0, overflow: 40 },
  { name: 'zero target', target: 0, services: ['A-1', 'A-2'], max: 50, players: [0, 0], simulated: 0, capacity: 100, overflow: 0 },
  { name: 'zero target, no services', target: 0, services: [], max: 50, players: [], simulated: 0, capacity: 0, overflow: 0 },
  { name: 'maxPlayers 0: nothing fits', target: 3, services: ['A-1', 'A-2'], max: 0, players: [0, 0], simulated: 0, capacity: 0, overflow: 3 },
];

describe('distribute', () => {
  for (const row of rows) {
    test(row.name, () => {
      const result = distribute(row.target, row.services, row.max, new Map(Object.entries(row.caps ?? {})));
      expect(result).toEqual({
        perService: row.services.map((name, i) => ({ name, players: row.players[i]! })),
        simulated: row.simulated,
        capacity: row.capacity,
        overflow: row.overflow,
      });
      // Every player is either placed or overflowed once the target exceeds capacity.
      expect(result.simulated).toBe(Math.min(row.target, row.capacity));
    });
  }

  test('perServiceText is name=count joined by commas', () => {
    expect(perServiceText(distribute(5, ['Lobby-1', 'Lobby-2'], 50).perService)).toBe('Lobby-1=3,Lobby-2=2');
    expect(perServiceText([])).toBe('');
  });
});

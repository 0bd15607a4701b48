import { describe, expect, test } from 'bun:test';
import { chooseBackend, type Candidate } from '../../src/loadbalancer/strategy';

const c = (name: string, playerCount: number, connections = 0): Candidate => ({ name, host: '127.0.0.1', port: 25000 + name.length, playerCount, connections });

describe('chooseBackend', () => {
  test('no candidates: nothing', () => {
    expect(chooseBackend('least-players', [], 0)).toBeUndefined();
    expect(chooseBackend('round-robin', [], 7)).toBeUndefined();
  });

  test('least-players: the fewest players wins, whatever the connections', () => {
    expect(chooseBackend('least-players', [c('a', 10), c('b', 3, 50), c('c', 7)], 0)?.name).toBe('b');
  });

  test('least-players: a tie goes to the fewest load-balancer connections', () => {
    expect(chooseBackend('least-players', [c('a', 4, 3), c('b', 4, 1), c('c', 4, 2), c('d', 9, 0)], 0)?.name).toBe('b');
  });

  test('least-players: a full tie keeps list order (predictable)', () => {
    expect(chooseBackend('least-players', [c('a', 4, 1), c('b', 4, 1)], 5)?.name).toBe('a');
  });

  test('round-robin: turn modulo the list, ignoring players and connections', () => {
    const list = [c('a', 0, 9), c('b', 100, 0), c('c', 5, 5)];
    expect([0, 1, 2, 3, 4, 5, 6].map((turn) => chooseBackend('round-robin', list, turn)?.name)).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'a']);
  });

  test('round-robin: a shorter list still yields a member', () => {
    expect(chooseBackend('round-robin', [c('a', 0), c('b', 0)], 5)?.name).toBe('b');
  });
});

import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import scaling0001 from '../../../src/modules/scaling/migrations/0001_scaling.sql' with { type: 'text' };
import { HOUR_MS, MINUTE_MS, ScalingStore } from '../../../src/modules/scaling/store';
import { openDatabase } from '../../../src/storage/db';
import { tempDir } from '../../support/controller';

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.reverse()) f();
  cleanup = [];
});

function store(): ScalingStore {
  const dir = tempDir('svc-scaling-store-');
  const db = openDatabase(join(dir.dir, 'svc.db'));
  cleanup.push(dir.remove, () => db.close());
  db.run(scaling0001);
  return new ScalingStore(db);
}

const T0 = Date.UTC(2026, 10, 2, 10, 0); // Monday 10:00Z

describe('ScalingStore', () => {
  test('one sample per group per minute; the hour aggregate counts each once', () => {
    const s = store();
    expect(s.addSamples(T0, [{ group: 'Lobby', players: 4, services: 1 }, { group: 'Game', players: 0, services: 0 }])).toBe(2);
    // The same minute again (a second tick): the first sample stands.
    expect(s.addSamples(T0 + 30_000, [{ group: 'Lobby', players: 99, services: 9 }])).toBe(0);
    s.addSamples(T0 + MINUTE_MS, [{ group: 'Lobby', players: 10, services: 2 }]);
    s.addSamples(T0 + HOUR_MS, [{ group: 'Lobby', players: 1, services: 1 }]);
    expect(s.hoursBetween('Lobby', T0, T0 + 2 * HOUR_MS)).toEqual([
      { hourMs: T0, samples: 2, playersSum: 14, playersMax: 10, servicesSum: 3 },
      { hourMs: T0 + HOUR_MS, samples: 1, playersSum: 1, playersMax: 1, servicesSum: 1 },
    ]);
    expect(s.hoursBetween('Lobby', T0 + HOUR_MS + 5 * MINUTE_MS, T0 + 2 * HOUR_MS)).toHaveLength(1);
    // Only the hours asked for: a later row (a clock stepped back) is not in an earlier window.
    expect(s.hoursBetween('Lobby', T0, T0 + 1).map((h) => h.hourMs)).toEqual([T0]);
    expect(s.playersBetween('Lobby', T0, T0 + HOUR_MS).sort((a, b) => a - b)).toEqual([4, 10]);
    expect(s.playersBetween('Lobby', T0 + MINUTE_MS, T0 + HOUR_MS + MINUTE_MS).sort((a, b) => a - b)).toEqual([1, 10]);
    expect(s.playersBetween('Nobody', T0, T0 + HOUR_MS)).toEqual([]);
    expect(s.hoursBetween('Nobody', 0, T0)).toEqual([]);
  });

  test('decisions: newest first, limited, total counts the filter, group in any case', () => {
    const s = store();
    for (let i = 0; i < 5; i++) s.addDecision({ at: T0 + i, group: i % 2 === 0 ? 'Lobby' : 'Game', action: 'scale_up', reason: `r${i}`, source: 'engine', servicesStarted: 1 });
    const all = s.decisions(2);
    expect(all.total).toBe(5);
    expect(all.decisions.map((d) => d.reason)).toEqual(['r4', 'r3']);
    const lobby = s.decisions(10, 'LOBBY');
    expect(lobby.total).toBe(3);
    expect(lobby.decisions.map((d) => d.reason)).toEqual(['r4', 'r2', 'r0']);
  });

  test('prune drops what is older than the cut, for every group, and keeps the rest', () => {
    const s = store();
    s.addSamples(T0, [{ group: 'Lobby', players: 1, services: 1 }, { group: 'Game', players: 2, services: 1 }]);
    s.addSamples(T0 + 2 * HOUR_MS, [{ group: 'Lobby', players: 3, services: 1 }, { group: 'Game', players: 4, services: 1 }]);
    s.addDecision({ at: T0, group: 'Lobby', action: 'scale_down', reason: 'old', source: 'engine', servicesStarted: 0 });
    s.addDecision({ at: T0 + 2 * HOUR_MS, group: 'Lobby', action: 'scale_down', reason: 'new', source: 'engine', servicesStarted: 0 });
    expect(s.prune(T0 + HOUR_MS)).toBe(5); // 2 samples, 2 hours, 1 decision
    expect(s.playersBetween('Game', 0, T0 + 3 * HOUR_MS)).toEqual([4]);
    expect(s.hoursBetween('Lobby', 0, T0 + 3 * HOUR_MS).map((h) => h.hourMs)).toEqual([T0 + 2 * HOUR_MS]);
    expect(s.decisions(10).decisions.map((d) => d.reason)).toEqual(['new']);
  });
});

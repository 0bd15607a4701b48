import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { howToLift, quarantineRefusal, Quarantines, type QuarantineRecord } from '../../../src/core/services/quarantine';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function fileIn(): { dir: string; file: string } {
  const { dir, remove } = tempDir('svc-quarantine-');
  cleanups.push(remove);
  return { dir, file: join(dir, 'state', 'quarantine.json') };
}

const record = (name: string, extra: Partial<QuarantineRecord> = {}): QuarantineRecord => ({
  name,
  kind: 'group',
  reason: 'crash loop: 10 crashes within 5 min',
  crashes: 10,
  since: '2026-01-02T03:04:05.000Z',
  lastService: `${name}-1`,
  lastExitCode: 3,
  diagnosis: null,
  ...extra,
});

describe('Quarantines (data/state/quarantine.json)', () => {
  test('a quarantine is written owner-only at once and read back by the next controller', () => {
    const { file } = fileIn();
    const first = new Quarantines(file);
    expect(first.load()).toBeNull();
    first.add(record('Lobby'));
    first.add(record('Arena', { kind: 'dedicated', lastExitCode: null }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ version: 1, quarantined: [record('Arena', { kind: 'dedicated', lastExitCode: null }), record('Lobby')] });
    // No temp file left beside it.
    expect(readdirSync(join(file, '..'))).toEqual(['quarantine.json']);

    const next = new Quarantines(file);
    expect(next.load()).toBeNull();
    expect(next.list().map((q) => q.name)).toEqual(['Arena', 'Lobby']);
    expect(next.get('Lobby')).toEqual(record('Lobby'));
  });

  test('a lift is written before it is forgotten; lifting what is not quarantined changes nothing', () => {
    const { file } = fileIn();
    const store = new Quarantines(file);
    store.add(record('Lobby'));
    expect(store.lift('Lobby')).toEqual(record('Lobby'));
    expect(store.has('Lobby')).toBe(false);
    expect(JSON.parse(readFileSync(file, 'utf8')).quarantined).toEqual([]);
    expect(store.lift('Lobby')).toBeUndefined();
  });

  /** Makes every write of `file` fail, for root too: its name is taken by a non-empty directory. */
  const blockWrites = (file: string) => {
    rmSync(file, { force: true });
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
  };

  test('a lift that cannot be written throws and the group stays quarantined', () => {
    const { file } = fileIn();
    const store = new Quarantines(file);
    store.add(record('Lobby'));
    blockWrites(file);
    expect(() => store.lift('Lobby')).toThrow();
    expect(store.has('Lobby')).toBe(true);
  });

  test('a quarantine holds in memory when the file cannot be written (the write error is the caller\'s to log)', () => {
    const { file } = fileIn();
    blockWrites(file);
    const store = new Quarantines(file);
    expect(() => store.add(record('Lobby'))).toThrow();
    expect(store.has('Lobby')).toBe(true);
  });

  test.each([
    ['not JSON', '{"version":1,"quarantined":[', 'cannot be read'],
    ['an empty file', '', 'cannot be read'],
    ['the wrong shape', JSON.stringify({ version: 1, quarantined: [{ name: 'Lobby' }] }), 'unexpected shape'],
    ['an unknown version', JSON.stringify({ version: 2, quarantined: [] }), 'unexpected shape'],
  ])('a damaged file (%s) is moved aside, kept, and reported', (_what, content, why) => {
    const { file } = fileIn();
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, content);
    const store = new Quarantines(file);
    const problem = store.load(new Date('2026-05-06T07:08:09.010Z'));
    const aside = `${file}.damaged-2026-05-06T07-08-09-010Z`;
    expect(problem).toContain(why);
    expect(problem).toContain(aside);
    expect(store.problem).toBe(problem);
    expect(store.list()).toEqual([]);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(aside, 'utf8')).toBe(content);
    // The next quarantine writes a fresh file; the damaged one stays beside it.
    store.add(record('Lobby'));
    expect(new Quarantines(file).load()).toBeNull();
    expect(readFileSync(aside, 'utf8')).toBe(content);
  });

  test('without a file it lives in memory only', () => {
    const store = new Quarantines(null);
    expect(store.load()).toBeNull();
    store.add(record('Lobby'));
    expect(store.has('Lobby')).toBe(true);
    expect(store.lift('Lobby')?.name).toBe('Lobby');
  });

  test('messages say what, since when, why and how to lift it', () => {
    expect(howToLift({ name: 'Lobby', kind: 'group' })).toBe('`quarantine lift Lobby` in the console or `svc cli`, or DELETE /api/groups/Lobby/quarantine');
    expect(howToLift({ name: 'Arena', kind: 'dedicated' })).toContain('DELETE /api/dedicated/Arena/quarantine');
    expect(quarantineRefusal(record('Lobby'))).toBe(
      'group Lobby is quarantined since 2026-01-02T03:04:05.000Z (crash loop: 10 crashes within 5 min); nothing starts it until an operator lifts the quarantine: `quarantine lift Lobby` in the console or `svc cli`, or DELETE /api/groups/Lobby/quarantine',
    );
  });
});

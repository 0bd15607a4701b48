import { describe, expect, test } from 'bun:test';
import { detailsOf, NO_FILTERS, PAGE_SIZE, timelineQuery, typesOf, withTail, type TimelineEntry } from '../../src/dashboard/app/pages/timeline/model';

const entry = (id: number, data: Record<string, string> = {}): TimelineEntry => ({ id, timestamp: new Date(id * 1000).toISOString(), type: 'GROUP_UPDATED', actor: 'api:admin', service: null, group: 'Lobby', data: { group: 'Lobby', ...data } });

describe('the network timeline page’s model', () => {
  test('filters become the API’s query; blanks are left out; types are upper-cased and joined', () => {
    expect(timelineQuery(NO_FILTERS)).toBe(`limit=${PAGE_SIZE}`);
    const query = new URLSearchParams(timelineQuery({ service: ' Lobby-1 ', group: 'Lobby', actor: 'api:admin', types: 'service_ready, SCALE_UP  bad-type' }, { before: 42 }));
    expect(Object.fromEntries(query)).toEqual({ limit: String(PAGE_SIZE), service: 'Lobby-1', group: 'Lobby', actor: 'api:admin', type: 'SERVICE_READY,SCALE_UP', before: '42' });
    expect(new URLSearchParams(timelineQuery(NO_FILTERS, { after: 7 })).get('after')).toBe('7');
  });

  test('a typed type list keeps only what the API could match', () => {
    expect(typesOf('')).toEqual([]);
    expect(typesOf('a,b c;d')).toEqual(['A', 'B']);
  });

  test('the live tail goes on top, newest first, never an entry twice', () => {
    const shown = [entry(5), entry(4), entry(3)];
    expect(withTail(shown, [entry(4), entry(6), entry(7)]).map((e) => e.id)).toEqual([7, 6, 5, 4, 3]);
    expect(withTail([], [entry(1), entry(2)]).map((e) => e.id)).toEqual([2, 1]);
  });

  test('details leave out the subject already shown and empty values', () => {
    expect(detailsOf(entry(1, { reason: 'players 40/50', moduleId: 'scaling', note: '' }))).toBe('reason players 40/50');
  });
});

import { describe, expect, test } from 'bun:test';
import { DEFAULT_BUCKETS, MetricsRegistry } from '../../../src/core/metrics/registry';
import { parseExposition } from './exposition';

describe('MetricsRegistry.render', () => {
  test('is valid exposition text, with HELP and label values escaped', () => {
    const metrics = new MetricsRegistry();
    metrics.gauge('a_gauge', 'two\nlines and a \\ backslash\r\nand CRLF', () => [{ labels: { path: 'C:\\x "q"\nz' }, value: 1 }]);
    metrics.counter('events_total', 'nothing yet', () => []);
    metrics.gauge('odd_values', 'special numbers', () => [
      { labels: { v: 'nan' }, value: NaN },
      { labels: { v: 'inf' }, value: Infinity },
      { labels: { v: 'ninf' }, value: -Infinity },
      { labels: { v: 'tiny' }, value: 1e-9 },
      { labels: { v: 'huge' }, value: 1e21 },
    ]);
    const text = metrics.render();
    expect(text).toContain('# HELP a_gauge two\\nlines and a \\\\ backslash\\nand CRLF\n');
    const parsed = parseExposition(text);
    expect(parsed.families.get('a_gauge')!.help).toBe('two\nlines and a \\ backslash\nand CRLF');
    expect(parsed.value('a_gauge', { path: 'C:\\x "q"\nz' })).toBe(1);
    expect(parsed.families.get('events_total')).toMatchObject({ type: 'counter', samples: [] });
    expect(parsed.value('odd_values', { v: 'nan' })).toBeNaN();
    expect(parsed.value('odd_values', { v: 'inf' })).toBe(Infinity);
    expect(parsed.value('odd_values', { v: 'ninf' })).toBe(-Infinity);
    expect(parsed.value('odd_values', { v: 'tiny' })).toBe(1e-9);
    expect(parsed.value('odd_values', { v: 'huge' })).toBe(1e21);
  });

  test('an empty registry renders a lone line feed', () => {
    expect(new MetricsRegistry().render()).toBe('\n');
  });

  test('refuses invalid metric names, counters not ending in _total and double registration', () => {
    const metrics = new MetricsRegistry();
    expect(() => metrics.gauge('svc-bad', 'x', () => 1)).toThrow('is not [a-zA-Z_:]');
    expect(() => metrics.gauge('1svc', 'x', () => 1)).toThrow('is not [a-zA-Z_:]');
    expect(() => metrics.counter('svc_crashes', 'x', () => 1)).toThrow('must end in _total');
    metrics.gauge('ok:name_1', 'x', () => 1);
    expect(() => metrics.gauge('ok:name_1', 'x', () => 1)).toThrow('registered twice');
  });

  test('a collector with an invalid label name or a repeated series is a bug, not bad text', () => {
    const bad = new MetricsRegistry();
    bad.gauge('g', 'x', () => [{ labels: { 'a-b': '1' }, value: 1 }]);
    expect(() => bad.render()).toThrow('label name "a-b"');
    const reserved = new MetricsRegistry();
    reserved.gauge('g', 'x', () => [{ labels: { __name__: 'x' }, value: 1 }]);
    expect(() => reserved.render()).toThrow('label name "__name__"');
    const twice = new MetricsRegistry();
    twice.gauge('g', 'x', () => [
      { labels: { a: '1', b: '2' }, value: 1 },
      { labels: { b: '2', a: '1' }, value: 2 },
    ]);
    expect(() => twice.render()).toThrow('twice');
  });
});

describe('MetricsRegistry.histogram', () => {
  test('cumulative buckets (a value on a bound counts in it), +Inf = count, sum; valid text', () => {
    const metrics = new MetricsRegistry();
    const h = metrics.histogram('req_seconds', 'request time', [0.1, 1, 5]);
    const a = h.series({ route: '/a', status: '2xx' });
    for (const v of [0.05, 0.1, 0.5, 1, 3, 7]) a.observe(v);
    h.series({ route: '/b', status: '4xx' });
    const text = metrics.render();
    expect(text).toContain('# TYPE req_seconds histogram\n');
    const parsed = parseExposition(text);
    const family = parsed.families.get('req_seconds')!;
    expect(family.type).toBe('histogram');
    const bucket = (route: string, le: string) => parsed.value('req_seconds_bucket', { route, status: route === '/a' ? '2xx' : '4xx', le });
    expect(['0.1', '1', '5', '+Inf'].map((le) => bucket('/a', le))).toEqual([2, 4, 5, 6]);
    expect(parsed.value('req_seconds_count', { route: '/a', status: '2xx' })).toBe(6);
    expect(parsed.value('req_seconds_sum', { route: '/a', status: '2xx' })).toBeCloseTo(11.65, 10);
    // a series made but not observed yet: zeros throughout
    expect(['0.1', '1', '5', '+Inf'].map((le) => bucket('/b', le))).toEqual([0, 0, 0, 0]);
    expect(parsed.value('req_seconds_count', { route: '/b', status: '4xx' })).toBe(0);
    // per series: its buckets in order, then _sum and _count; le last among the labels
    expect(text).toContain('req_seconds_bucket{route="/a",status="2xx",le="5"} 5\nreq_seconds_bucket{route="/a",status="2xx",le="+Inf"} 6\nreq_seconds_sum{route="/a",status="2xx"} 11.65');
  });

  test('the same labels in any order are one series; le is reserved; bounds finite and increasing', () => {
    const metrics = new MetricsRegistry();
    const h = metrics.histogram('h_seconds', 'x');
    expect(h.bounds).toEqual(DEFAULT_BUCKETS);
    expect(h.series({ a: '1', b: '2' })).toBe(h.series({ b: '2', a: '1' }));
    expect(() => h.series({ le: '1' })).toThrow('reserved');
    expect(() => metrics.histogram('h_seconds', 'x')).toThrow('registered twice');
    expect(() => metrics.histogram('h2', 'x', [])).toThrow('at least one bucket');
    expect(() => metrics.histogram('h3', 'x', [1, 1])).toThrow('must increase');
    expect(() => metrics.histogram('h4', 'x', [1, Infinity])).toThrow('finite');
  });

  test('a histogram without labels renders bare _sum and _count', () => {
    const metrics = new MetricsRegistry();
    metrics.histogram('plain_seconds', 'x', [1]).series().observe(2);
    const parsed = parseExposition(metrics.render());
    expect(parsed.value('plain_seconds_bucket', { le: '1' })).toBe(0);
    expect(parsed.value('plain_seconds_bucket', { le: '+Inf' })).toBe(1);
    expect(parsed.value('plain_seconds_sum')).toBe(2);
    expect(parsed.value('plain_seconds_count')).toBe(1);
  });
});

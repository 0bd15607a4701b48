import { describe, expect, test } from 'bun:test';
import { MetricsRegistry } from '../../../src/core/metrics/registry';
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

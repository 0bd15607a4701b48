import { describe, expect, test } from 'bun:test';
import { ExpositionError, parseExposition } from './exposition';

/** Lines joined with the final line feed the format requires. */
const doc = (...lines: string[]) => `${lines.join('\n')}\n`;

function violation(text: string): ExpositionError {
  try {
    parseExposition(text);
  } catch (error) {
    if (error instanceof ExpositionError) return error;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(text)}`);
}

describe('parseExposition accepts valid text', () => {
  test('families, labels, escapes, special numbers and timestamps', () => {
    const text = doc(
      '# HELP svc_info controller version with a \\\\ backslash\\nand a second line',
      '# TYPE svc_info gauge',
      'svc_info{version="0.13.0"} 1',
      '',
      '# TYPE http_requests_total counter',
      '# HELP http_requests_total requests served',
      'http_requests_total{method="post",code="200"} 1027 1395066363000',
      'http_requests_total{method="post",code="400",} 3 1395066363000',
      'http_requests_total{path="C:\\\\dir",quote="say \\"hi\\"",nl="a\\nb"} 0',
      'weird:name_ 1.5e-3',
      'nan_value NaN',
      'pos_inf +Inf',
      'neg_inf\t-Inf',
      'empty_labels{} -0.5',
      '# TYPE latency histogram',
      'latency_bucket{le="0.1"} 1',
      'latency_bucket{le="+Inf"} 2',
      'latency_sum .25',
      'latency_count 2',
      '# TYPE rpc summary',
      'rpc{quantile="0.5"} 4.',
      'rpc_sum 10',
      'rpc_count 3',
    );
    const parsed = parseExposition(text);
    expect([...parsed.families.keys()]).toEqual([
      'svc_info',
      'http_requests_total',
      'weird:name_',
      'nan_value',
      'pos_inf',
      'neg_inf',
      'empty_labels',
      'latency',
      'rpc',
    ]);
    const info = parsed.families.get('svc_info')!;
    expect(info.type).toBe('gauge');
    expect(info.help).toBe('controller version with a \\ backslash\nand a second line');
    expect(parsed.value('svc_info', { version: '0.13.0' })).toBe(1);
    // label order does not matter for lookups
    expect(parsed.sample('http_requests_total', { code: '200', method: 'post' })).toMatchObject({ value: 1027, timestamp: 1395066363000, line: 7 });
    expect(parsed.value('http_requests_total', { method: 'post', code: '400' })).toBe(3);
    expect(parsed.value('http_requests_total', { path: 'C:\\dir', quote: 'say "hi"', nl: 'a\nb' })).toBe(0);
    expect(parsed.value('weird:name_')).toBe(0.0015);
    expect(parsed.value('nan_value')).toBeNaN();
    expect(parsed.value('pos_inf')).toBe(Infinity);
    expect(parsed.value('neg_inf')).toBe(-Infinity);
    expect(parsed.value('empty_labels')).toBe(-0.5);
    expect(parsed.families.get('latency')!.samples.map((s) => s.name)).toEqual(['latency_bucket', 'latency_bucket', 'latency_sum', 'latency_count']);
    expect(parsed.families.get('rpc')!.samples).toHaveLength(3);
    expect(parsed.value('missing')).toBeUndefined();
  });

  test('empty text and a lone line feed are empty expositions', () => {
    expect(parseExposition('').families.size).toBe(0);
    expect(parseExposition('\n').families.size).toBe(0);
  });

  test('a family with HELP and TYPE but no samples', () => {
    const parsed = parseExposition(doc('# HELP c_total nothing yet', '# TYPE c_total counter', '# HELP g x', '# TYPE g gauge', 'g 1'));
    expect(parsed.families.get('c_total')).toEqual({ name: 'c_total', help: 'nothing yet', type: 'counter', samples: [] });
  });

  test('HELP with no text', () => {
    expect(parseExposition(doc('# HELP a', 'a 1')).families.get('a')!.help).toBe('');
  });
});

describe('parseExposition rejects', () => {
  test.each([
    ['no final line feed', 'a 1', 1, 'line feed'],
    ['a free comment', doc('# just a comment', 'a 1'), 1, 'not a HELP or TYPE'],
    ['a HELP without a space after #', doc('#HELP a x'), 1, 'not a HELP or TYPE'],
    ['an invalid name in HELP', doc('# HELP 1a x'), 1, 'invalid metric name'],
    ['an invalid name in TYPE', doc('# TYPE a-b gauge'), 1, 'invalid metric name'],
    ['an unknown TYPE', doc('# TYPE a gauges', 'a 1'), 1, 'unknown TYPE'],
    ['a TYPE without a type', doc('# TYPE a', 'a 1'), 1, 'unknown TYPE'],
    ['a second TYPE', doc('# TYPE a gauge', '# TYPE a gauge', 'a 1'), 2, 'second TYPE'],
    ['a second HELP', doc('# HELP a x', '# HELP a y', 'a 1'), 2, 'second HELP'],
    ['a TYPE after the samples', doc('a 1', '# TYPE a gauge'), 2, 'after its samples'],
    ['a HELP after the samples', doc('# TYPE a gauge', 'a 1', '# HELP a late'), 3, 'after its samples'],
    ['a bad escape in HELP', doc('# HELP a tab\\there', 'a 1'), 1, 'invalid escape in HELP'],
    ['a trailing backslash in HELP', doc('# HELP a oops\\', 'a 1'), 1, 'invalid escape in HELP'],
    ['samples of a family split by another', doc('# TYPE a gauge', 'a{x="1"} 1', 'b 1', 'a{x="2"} 2'), 4, 'not contiguous'],
    ['a TYPE coming back to a left family', doc('a 1', 'b 1', '# TYPE a gauge'), 3, 'not contiguous'],
    ['a duplicate series', doc('a{x="1",y="2"} 1', 'a{y="2",x="1"} 2'), 2, 'duplicate series'],
    ['a duplicate unlabelled series', doc('a 1', 'a 2'), 2, 'duplicate series'],
    ['an invalid metric name', doc('1abc 1'), 1, 'invalid metric name'],
    ['a dash in a metric name', doc('a-b 1'), 1, 'invalid metric name'],
    ['a line starting with a blank', doc(' a 1'), 1, 'invalid metric name'],
    ['an invalid label name', doc('a{1x="v"} 1'), 1, 'invalid label name'],
    ['a colon in a label name', doc('a{x:y="v"} 1'), 1, 'invalid label name'],
    ['a reserved label name', doc('a{__name__="v"} 1'), 1, 'reserved label name'],
    ['a label given twice', doc('a{x="1",x="2"} 1'), 1, 'given twice'],
    ['an unquoted label value', doc('a{x=1} 1'), 1, 'expected ="'],
    ['an unterminated label value', doc('a{x="1} 1'), 1, 'unterminated'],
    ['a bad escape in a label value', doc('a{x="\\t"} 1'), 1, 'invalid escape in value'],
    ['a blank between labels', doc('a{x="1", y="2"} 1'), 1, 'invalid label name'],
    ['garbage after a label value', doc('a{x="1"y="2"} 1'), 1, 'expected , or }'],
    ['a missing value', doc('a'), 1, 'expected a blank'],
    ['a missing value after labels', doc('a{x="1"}'), 1, 'expected a blank'],
    ['only a blank after the name', doc('a '), 1, 'missing value'],
    ['a value glued to the labels', doc('a{x="1"}1'), 1, 'expected a blank'],
    ['a word for a value', doc('a one'), 1, 'not a number'],
    ['a lowercase inf', doc('a inf'), 1, 'not a number'],
    ['a hex value', doc('a 0x10'), 1, 'not a number'],
    ['trailing blanks', doc('a 1 '), 1, 'trailing blanks'],
    ['a float timestamp', doc('a 1 1.5'), 1, 'not a timestamp'],
    ['text after the timestamp', doc('a 1 2 3'), 1, 'unexpected text'],
  ] as const)('%s', (_what, text, line, reason) => {
    const error = violation(text);
    expect(error.line).toBe(line);
    expect(error.reason).toContain(reason);
    expect(error.message).toStartWith(`line ${line}: `);
  });
});

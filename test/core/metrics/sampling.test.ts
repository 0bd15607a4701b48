import { describe, expect, test } from 'bun:test';
import { startServiceSampling } from '../../../src/core/metrics/sampling';
import { createLogger } from '../../../src/log';
import { waitFor } from '../../support/controller';


describe('service sampling', () => {
  test('service sampling prunes both histories at start and logs a failed prune', async () => {
    const lines: string[] = [];
    const log = createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => void lines.push(line) } });
    const pruned: string[] = [];
    const sampling = startServiceSampling(
      { sample: () => 0, prune: () => (pruned.push('history'), Promise.resolve(0)) },
      {
        sample: () => {
          throw new Error('not sampled in this test');
        },
        prune: () => (pruned.push('dashboard'), Promise.reject(new Error('locked'))),
      },
      () => 30,
      log,
    );
    sampling.stop();
    await waitFor(() => pruned.length === 2 && lines.join('').includes('metrics pruning failed'), { what: 'both prunes and the failure line' });
    expect(pruned).toEqual(['history', 'dashboard']);
    expect(lines.join('')).toContain('metrics pruning failed');
  });
});

describe('the sample interval', () => {
  test('samples come at the interval given ([metrics] sample_interval)', async () => {
    const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });
    let samples = 0;
    const started = performance.now();
    const sampling = startServiceSampling({ sample: () => (samples++, 0), prune: () => Promise.resolve(0) }, { sample: () => ({}) as never, prune: () => Promise.resolve(0) }, () => 30, log, 50);
    try {
      await waitFor(() => samples >= 2, { what: 'two samples 50 ms apart' });
      // The default interval is 10 s: two samples this soon come only from the one given.
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      sampling.stop();
    }
  });
});

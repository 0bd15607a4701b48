import { describe, expect, test } from 'bun:test';
import { startAuditPruning } from '../../../src/core/audit/pruning';
import { createLogger } from '../../../src/log';
import { waitFor } from '../../support/controller';

const DAY_MS = 24 * 3600 * 1000;

/** A logger whose JSON lines are kept. */
function capturedLog() {
  const lines: string[] = [];
  const log = createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => void lines.push(line) } });
  return { log, lines };
}


describe('audit pruning', () => {
  test('audit pruning runs once at start with the cutoff of the retention read then, and says what it removed', async () => {
    const { log, lines } = capturedLog();
    const cutoffs: number[] = [];
    const before = Date.now();
    const pruning = startAuditPruning({ prune: (cutoff) => (cutoffs.push(cutoff), Promise.resolve(3)) }, () => 7, log);
    pruning.stop();
    await waitFor(() => lines.join('').includes('pruned old audit entries'), { what: 'the prune log line' });
    expect(cutoffs).toHaveLength(1);
    expect(cutoffs[0]!).toBeGreaterThanOrEqual(before - 7 * DAY_MS);
    expect(cutoffs[0]!).toBeLessThanOrEqual(Date.now() - 7 * DAY_MS);
    expect(lines.join('')).toContain('pruned old audit entries');
  });

  test('a failed audit prune is logged, never thrown', async () => {
    const { log, lines } = capturedLog();
    startAuditPruning({ prune: () => Promise.reject(new Error('disk full')) }, () => 1, log).stop();
    await waitFor(() => lines.join('').includes('audit pruning failed'), { what: 'the failure log line' });
    expect(lines.join('')).toContain('audit pruning failed');
  });
});

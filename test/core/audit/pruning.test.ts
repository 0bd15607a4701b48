import { describe, expect, test } from 'bun:test';
import { startAuditPruning } from '../../../src/core/audit/pruning';
import { createLogger } from '../../../src/log';

const DAY_MS = 24 * 3600 * 1000;

/** A logger whose JSON lines are kept. */
function capturedLog() {
  const lines: string[] = [];
  const log = createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => void lines.push(line) } });
  return { log, lines };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('audit pruning', () => {
  test('audit pruning runs once at start with the cutoff of the retention read then, and says what it removed', async () => {
    const { log, lines } = capturedLog();
    const cutoffs: number[] = [];
    const before = Date.now();
    const pruning = startAuditPruning({ prune: (cutoff) => (cutoffs.push(cutoff), Promise.resolve(3)) }, () => 7, log);
    pruning.stop();
    await settle();
    expect(cutoffs).toHaveLength(1);
    expect(cutoffs[0]!).toBeGreaterThanOrEqual(before - 7 * DAY_MS);
    expect(cutoffs[0]!).toBeLessThanOrEqual(Date.now() - 7 * DAY_MS);
    expect(lines.join('')).toContain('pruned old audit entries');
  });

  test('a failed audit prune is logged, never thrown', async () => {
    const { log, lines } = capturedLog();
    startAuditPruning({ prune: () => Promise.reject(new Error('disk full')) }, () => 1, log).stop();
    await settle();
    expect(lines.join('')).toContain('audit pruning failed');
  });
});

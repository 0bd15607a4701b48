import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ProcessRecord, readProcessRecord, writeProcessRecord } from '../../../../src/core/supervisor/process/process-record';

const dir = mkdtempSync(join(tmpdir(), 'svc-record-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RECORD: ProcessRecord = {
  name: 'lobby',
  marker: 'svc-1',
  wrapperPid: 10,
  pid: 11,
  startedAt: '2026-01-01T00:00:00.000Z',
  logFile: '/s/console.log',
  fifo: '/s/stdin.fifo',
  exitFile: '/s/exit-code',
};

describe('process.json', () => {
  test('round-trips, written atomically (no temp file left behind)', () => {
    const path = join(dir, 'process.json');
    writeProcessRecord(path, RECORD);
    expect(readProcessRecord(path)).toEqual({ ok: true, record: RECORD });
    expect(readdirSync(dir)).toEqual(['process.json']);
  });

  test.each([
    ['a pid that is not a positive integer', { ...RECORD, pid: 0 }],
    ['a pid given as a string', { ...RECORD, wrapperPid: '10' }],
    ['a missing marker', { ...RECORD, marker: undefined }],
    ['not an object', [RECORD]],
  ])('rejects %s', (_, value) => {
    const path = join(dir, 'bad.json');
    writeFileSync(path, JSON.stringify(value));
    expect(readProcessRecord(path)).toEqual({ ok: false, reason: expect.stringContaining('missing fields') });
  });
});

import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { MemorySchema, memoryMaxMb, parseMemory } from '../../../src/core/software/memory';
import { catchApiError } from './catch-error';

describe('parseMemory', () => {
  test.each([
    ['512M', 512],
    ['512m', 512],
    ['2G', 2048],
    ['2g', 2048],
    ['10G', 10240],
    ['1536M', 1536],
  ])('%s → %d MB', (text, mb) => {
    expect(parseMemory(text)).toBe(mb);
    expect(Value.Check(MemorySchema, text)).toBe(true);
  });

  test.each(['', '2', 'G', '0M', '0G', '2GB', '2K', '1.5G', '-1G', ' 2G', '02G'])('rejects %p with VALIDATION_FAILED', (text) => {
    expect(Value.Check(MemorySchema, text)).toBe(false);
    expect(catchApiError(() => parseMemory(text)).errorCode).toBe('VALIDATION_FAILED');
  });
});

describe('memoryMaxMb', () => {
  test.each([
    ['512M', 512 + 384], // half is 256: the 384 MB floor applies
    ['768M', 768 + 384], // half is exactly 384
    ['1G', 1024 + 512],
    ['2G', 2048 + 1024],
    ['2g', 3072],
    ['1001M', 1001 + 500], // integer division
  ])('%s → %d MB', (text, mb) => {
    expect(memoryMaxMb(text)).toBe(mb);
  });

  test('throws on a bad size', () => {
    expect(catchApiError(() => memoryMaxMb('lots')).errorCode).toBe('VALIDATION_FAILED');
  });
});

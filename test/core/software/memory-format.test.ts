import { expect, test } from 'bun:test';
import { formatMemory, parseMemory } from '../../../src/core/software/memory';

test.each([
  [8192, '8G'],
  [1024, '1G'],
  [1536, '1536M'],
  [512, '512M'],
  [0, '0M'],
  [1023.6, '1G'],
])('formatMemory(%p) = %p', (mb, text) => {
  expect(formatMemory(mb)).toBe(text);
});

test('formatMemory round-trips through parseMemory for every whole amount it writes', () => {
  for (const mb of [1, 384, 1024, 3072, 4095, 65536]) expect(parseMemory(formatMemory(mb))).toBe(mb);
});

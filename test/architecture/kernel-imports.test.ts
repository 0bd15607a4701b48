/**
 * The kernel names no type of src/http/ (issue 40): what the composition root hands to routes,
 * core and modules is made of core's parts (the Authenticator lives in src/core/auth/), so the
 * HTTP layer depends on the kernel and never the other way round.
 */
import { expect, test } from 'bun:test';
import { resolve } from 'node:path';
import { readImportGraph } from './import-graph';

test('kernel.ts imports nothing from src/http/', () => {
  const imports = readImportGraph(resolve(import.meta.dir, '../../src')).get('kernel.ts');
  // A broken reader would pass: the kernel's type imports are read.
  expect(imports).toContain('core/auth/index.ts');
  expect(imports!.filter((file) => file.startsWith('http/'))).toEqual([]);
});

/**
 * src/ has no import loops (issue 40): no file reaches itself by any chain of imports, type
 * imports included. A loop means two parts cannot be read, tested or moved apart; break one
 * by moving the shared types to their own file, inverting the dependency (the lower part
 * declares the narrow interface it needs) or passing a function.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importCycles, readImportGraph } from './import-graph';

const SRC = resolve(import.meta.dir, '../../src');

/** A cycle as the failure shows it: its size and its files. */
const describeCycle = (files: readonly string[]) => `${files.length} files: ${files.join(', ')}`;

describe('import cycles', () => {
  const graph = readImportGraph(SRC);

  test('the graph was read (a broken reader would pass everything below)', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('controller.ts')).toContain('kernel.ts');
    // Type-only imports are edges too.
    expect(graph.get('kernel.ts')).toContain('core/services/manager.ts');
  });

  test('src/ has none', () => {
    expect(importCycles(graph).map(describeCycle)).toEqual([]);
  });

  test('a planted loop is found: through index.ts, type and dynamic imports, re-exports, a self-import', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-cycles-'));
    try {
      mkdirSync(join(dir, 'c'));
      // a -> b -> c/index -> a, by a value import, a type import of a folder and a dynamic import.
      writeFileSync(join(dir, 'a.ts'), "import { b } from './b';\nexport const a = b;\n");
      writeFileSync(join(dir, 'b.ts'), "import type { C } from './c';\nexport const b: C = 1;\n");
      writeFileSync(join(dir, 'c/index.ts'), "export type C = number;\nexport const load = () => import('../a');\n");
      // f <-> g, by a multi-line import and a re-export.
      writeFileSync(join(dir, 'f.ts'), "import {\n  g,\n} from './g';\nexport const f = g;\n");
      writeFileSync(join(dir, 'g.ts'), "export * from './f';\nexport const g = 2;\n");
      writeFileSync(join(dir, 'e.ts'), "import { e as self } from './e';\nexport const e = self;\n");
      // Importing into a loop, or a file that is not there, makes none.
      writeFileSync(join(dir, 'd.ts'), "import { a } from './a';\nimport { z } from './missing';\nexport const d = [a, z];\n");
      expect(importCycles(readImportGraph(dir))).toEqual([['a.ts', 'b.ts', 'c/index.ts'], ['f.ts', 'g.ts'], ['e.ts']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * The layers the design promises, checked on the source's import graph (type imports count):
 * core never imports the HTTP layer or a module; the kernel reaches no module (core finds
 * modules only through kernel.modules, a ModuleHost); modpacks never reach back into the kernel.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dir, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceFiles(SRC);
const known = new Set(files);
const rel = (path: string) => relative(SRC, path);
/** Every relative import and re-export of a file, resolved to the file it names. */
const edges = new Map(
  files.map((file) => {
    const targets: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(/(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g)) {
      const base = resolve(dirname(file), (match[1] ?? match[2])!);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => known.has(candidate));
      if (target) targets.push(target);
    }
    return [file, targets];
  }),
);

/** An import path from `from` to a file `wanted` accepts, or null. */
function pathTo(from: string, wanted: (file: string) => boolean): string[] | null {
  const previous = new Map<string, string>();
  const queue = [from];
  while (queue.length > 0) {
    const file = queue.shift()!;
    for (const next of edges.get(file) ?? []) {
      if (previous.has(next) || next === from) continue;
      previous.set(next, file);
      if (wanted(rel(next))) {
        const path = [next];
        while (path[0] !== from) path.unshift(previous.get(path[0]!)!);
        return path.map(rel);
      }
      queue.push(next);
    }
  }
  return null;
}

describe('layers', () => {
  test('the graph was read (a broken reader would pass everything below)', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(edges.get(join(SRC, 'controller.ts'))!.map(rel)).toContain('kernel.ts');
  });

  test('core never imports src/http or src/modules', () => {
    const crossings = files
      .filter((file) => rel(file).startsWith('core/'))
      .flatMap((file) => edges.get(file)!.filter((target) => /^(http|modules)\//.test(rel(target))).map((target) => `${rel(file)} -> ${rel(target)}`));
    expect(crossings).toEqual([]);
  });

  test('the kernel reaches no module, by any chain of imports', () => {
    expect(pathTo(join(SRC, 'kernel.ts'), (file) => file.startsWith('modules/'))).toBeNull();
  });

  test('modpacks never reach back into the kernel', () => {
    const back = files.filter((file) => rel(file).startsWith('core/modpacks/')).map((file) => pathTo(file, (target) => target === 'kernel.ts'));
    expect(back.filter(Boolean)).toEqual([]);
  });
});

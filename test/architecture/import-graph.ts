/**
 * The source's import graph as the architecture tests read it: every relative import and
 * re-export of a `.ts` file, value and type imports alike, dynamic `import('…')` included,
 * resolved to the file it names (`x.ts` or `x/index.ts`). It is the graph
 * test/architecture/layers.test.ts builds, with the same pattern; read from any root, so a
 * test can plant files in a temp dir and check the reader on them.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** Files by path relative to the root (`core/services/manager.ts`), each with the files it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

const IMPORT = /(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'|import\(\s*'(\.[^']+)'\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** The import graph of every `.ts` file under `root`; imports that leave the root or name no such file are left out. */
export function readImportGraph(root: string): ImportGraph {
  const files = sourceFiles(root);
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const base = resolve(dirname(file), (match[1] ?? match[2])!);
      const target = [`${base}.ts`, join(base, 'index.ts')].find((candidate) => known.has(candidate));
      if (target) targets.push(relative(root, target));
    }
    graph.set(relative(root, file), targets);
  }
  return graph;
}

/**
 * The import cycles of a graph: its strongly connected components (Tarjan's algorithm) that
 * hold more than one file, or one file importing itself. Each is sorted by path; the list
 * runs largest first, then by first path, so a failing test reads the same every run.
 */
export function importCycles(graph: ImportGraph): string[][] {
  const order = new Map<string, number>(); // when each file was first reached
  const low = new Map<string, number>(); // the earliest file on the stack it reaches back to
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];

  const visit = (file: string): void => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file)!, order.get(next)!));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    // `file` is the root of a component: everything above it on the stack belongs to it.
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) cycles.push(component.sort());
  };

  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return cycles.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/**
 * The layout the design card names, and the build's own inputs in it: the top level holds only
 * the card's entries (DESIGN.md, Layout), and what build.ts and `bun run record-order` read is
 * where they read it — build.ts uses the bytecode order only when the file exists, so a moved
 * or lost file would make a slower binary without a word.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { BYTECODE_ORDER } from '../../build';

const ROOT = resolve(import.meta.dir, '../..');

/** The card's top level, plus CHANGELOG.md, bun.lock, .ci. */
const CARD = ['package.json', 'bunfig.toml', 'tsconfig.json', 'src', 'config', 'test', 'build.ts', 'README.md', 'CHANGELOG.md', 'bun.lock', '.ci'];

/** The top level git tracks (what a clone has), or null outside a checkout. */
function trackedTopLevel(): string[] | null {
  const result = Bun.spawnSync(['git', '-C', ROOT, 'ls-files', '-z'], { stdout: 'pipe', stderr: 'ignore' });
  if (!result.success) return null;
  const files = result.stdout.toString().split('\0').filter(Boolean).filter((file) => existsSync(join(ROOT, file)));
  return [...new Set(files.map((file) => file.split('/')[0]!))].sort();
}

describe('layout', () => {
  test("the top level is the design card's", () => {
    const top = trackedTopLevel() ?? readdirSync(ROOT).filter((name) => !['node_modules', 'dist', 'run', '.git'].includes(name) && !name.startsWith('.svc-test-'));
    expect(top.filter((name) => name !== '.gitignore' && !CARD.includes(name))).toEqual([]);
    for (const name of ['package.json', 'bunfig.toml', 'tsconfig.json', 'src', 'config', 'test', 'build.ts', 'README.md']) expect(top).toContain(name);
  });

  test("the bytecode order build.ts compiles with is in src/build, in Bun's v2 format", () => {
    expect(relative(ROOT, BYTECODE_ORDER)).toBe(join('src', 'build', 'startup.bytecode-order'));
    expect(statSync(BYTECODE_ORDER).size).toBeGreaterThan(0);
    // Bun's format line, then one function hash a line.
    const [format, first] = readFileSync(BYTECODE_ORDER, 'utf8').split('\n', 2);
    expect(format).toBe('v2');
    expect(first).toMatch(/^F [0-9a-f]{16}$/);
  });

  test('`bun run record-order` runs the recorder in src/build, which writes the file build.ts reads', () => {
    const scripts = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    expect(scripts['record-order']).toBe('bun src/build/record-bytecode-order.ts');
    const recorder = readFileSync(join(ROOT, 'src/build/record-bytecode-order.ts'), 'utf8');
    expect(recorder).toContain("from '../../build'");
    expect(recorder).toContain('copyFileSync(order, BYTECODE_ORDER)');
  });

  test('the ambient declarations of embedded text files are in src, inside the type-checked tree', () => {
    const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    expect(existsSync(join(ROOT, 'src/types.d.ts'))).toBe(true);
    expect(tsconfig.include).toContain('src');
    expect(tsconfig.include.every((entry) => CARD.includes(entry.split('/')[0]!))).toBe(true);
  });

  test('no product code imports the build tools in src/build (they never reach the binary)', () => {
    const tools = join(ROOT, 'src/build');
    const offenders: string[] = [];
    let imports = 0;
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
          if (path !== tools) walk(path);
          continue;
        }
        if (!path.endsWith('.ts')) continue;
        for (const match of readFileSync(path, 'utf8').matchAll(/(?:from\s+|import\(\s*)'(\.[^']+)'/g)) {
          imports += 1;
          if (resolve(dirname(path), match[1]!).startsWith(`${tools}/`)) offenders.push(`${relative(ROOT, path)} -> ${match[1]}`);
        }
      }
    };
    walk(join(ROOT, 'src'));
    expect(imports).toBeGreaterThan(1000); // the reader works
    expect(offenders).toEqual([]);
  });
});

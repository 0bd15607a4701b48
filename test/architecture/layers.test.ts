/**
 * The layers the design promises, checked on the source's import graph (type imports count):
 * core never imports the HTTP layer or a module; the kernel reaches no module (core finds
 * modules only through kernel.modules, a ModuleHost); modpacks never reach back into the kernel.
 * And on the source's text: nothing outside src/modules/ names a module's error code or event
 * (a module owns its contract; core learns it only by registration).
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { BUILTIN_MODULES } from '../../src/modules/builtin';

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

  test('src/cli is a network client: nothing in it reaches the kernel (the controller\'s own terminal console is src/terminal/)', () => {
    const inside = files.filter((file) => rel(file).startsWith('cli/')).map((file) => pathTo(file, (target) => target === 'kernel.ts'));
    expect(inside.filter(Boolean)).toEqual([]);
  });

  test('modpacks never reach back into the kernel', () => {
    const back = files.filter((file) => rel(file).startsWith('core/modpacks/')).map((file) => pathTo(file, (target) => target === 'kernel.ts'));
    expect(back.filter(Boolean)).toEqual([]);
  });
});

/** Every error code and event type a compiled-in module declares, with the module(s) declaring it. */
const moduleContract = new Map<string, string>();
for (const m of BUILTIN_MODULES) {
  for (const name of [...Object.keys(m.errors ?? {}), ...Object.keys(m.events ?? {})]) {
    const others = moduleContract.get(name);
    moduleContract.set(name, others ? `${others}, ${m.id}` : m.id);
  }
}

/**
 * Where a file outside src/modules/ (under `root`) names one of `names` as a whole word, in
 * code or comment: "file: NAME (module)". Core learns a module's codes and events only from
 * the module's declaration, so it can never depend on a module being there.
 */
/**
 * The controller's own files outside src/modules/ that name a module's code or event. The
 * dashboard's browser app (dashboard/app/) is not the controller: it is a client of the API, like
 * the plugins, and reads the module events and codes on the wire as any client does.
 */
function coreNamings(root: string, names: ReadonlyMap<string, string>): string[] {
  const pattern = new RegExp(`\\b(${[...names.keys()].join('|')})\\b`, 'g');
  return sourceFiles(root)
    .filter((file) => !relative(root, file).startsWith('modules/') && !relative(root, file).startsWith('dashboard/app/'))
    .flatMap((file) => [...readFileSync(file, 'utf8').matchAll(pattern)].map((match) => `${relative(root, file)}: ${match[1]} (${names.get(match[1]!)})`));
}

describe('modules own their contract', () => {
  test('the modules declare codes and events (a broken reader would pass everything below)', () => {
    const owners = new Set([...moduleContract.values()].flatMap((ids) => ids.split(', ')));
    for (const id of ['players', 'perms', 'display', 'punishments', 'resourcepacks', 'backup', 'scaling', 'auth']) expect(owners).toContain(id);
    expect(moduleContract.get('BACKUP_NOT_FOUND')).toBe('backup');
    expect(moduleContract.get('DISPLAY_UPDATED')).toBe('display');
    expect(moduleContract.get('PLAYER_NOT_FOUND')).toBe('players, perms');
  });

  test('nothing outside src/modules/ (core, http, events, errors.ts, kernel, controller, ws, cli…) names a module code or event', () => {
    expect(coreNamings(SRC, moduleContract)).toEqual([]);
  });

  test('the rule catches a core file that names one, in code or in a comment', () => {
    const temp = { dir: mkdtempSync(join(tmpdir(), 'svc-layers-')) };
    try {
      mkdirSync(join(temp.dir, 'core'), { recursive: true });
      mkdirSync(join(temp.dir, 'modules/backup'), { recursive: true });
      writeFileSync(join(temp.dir, 'core/restore.ts'), "throw new ApiError('BACKUP_NOT_FOUND', 'gone');\n");
      writeFileSync(join(temp.dir, 'events.ts'), '// published as DISPLAY_UPDATED by the display module\n');
      // The module's own files may name it, and a longer name that contains it is another name.
      writeFileSync(join(temp.dir, 'modules/backup/routes.ts'), "throw new ApiError('BACKUP_NOT_FOUND', 'gone');\n");
      writeFileSync(join(temp.dir, 'core/other.ts'), "const x = 'BACKUP_NOT_FOUND_OLD';\n");
      // The dashboard's browser app is a client of the API: it may; the dashboard's server files may not.
      mkdirSync(join(temp.dir, 'dashboard/app'), { recursive: true });
      writeFileSync(join(temp.dir, 'dashboard/app/timeline.ts'), "const label = { BACKUP_COMPLETED: 'Backed up' };\n");
      writeFileSync(join(temp.dir, 'dashboard/serve.ts'), "// BACKUP_COMPLETED\n");
      expect(coreNamings(temp.dir, moduleContract).sort()).toEqual(['core/restore.ts: BACKUP_NOT_FOUND (backup)', 'dashboard/serve.ts: BACKUP_COMPLETED (backup)', 'events.ts: DISPLAY_UPDATED (display)']);
    } finally {
      rmSync(temp.dir, { recursive: true, force: true });
    }
  });
});

/**
 * The module checklist of the design (DESIGN.md, "Module checklist"), checked on every module
 * compiled in: its folder holds its contract (errors.ts, events.ts where it has events) and its
 * module object offers routes, console commands and doctor sections; test/modules/<id>/ holds
 * its tests and test/bench/<id>.bench.ts measures it, named by the module's id.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { BUILTIN_MODULES } from '../../src/modules/builtin';
import { ERROR_CATALOGUE, EVENT_CATALOGUE } from '../../src/modules/contract';

const ROOT = resolve(import.meta.dir, '../..');

describe('module checklist', () => {
  test('every compiled-in module has its tests and a bench named by its id', () => {
    const benches = readdirSync(join(ROOT, 'test/bench')).filter((f) => f.endsWith('.bench.ts'));
    const missing = BUILTIN_MODULES.flatMap((m) => [
      ...(existsSync(join(ROOT, 'test/modules', m.id)) ? [] : [`test/modules/${m.id}/`]),
      ...(benches.includes(`${m.id}.bench.ts`) ? [] : [`test/bench/${m.id}.bench.ts`]),
    ]);
    expect(missing).toEqual([]);
  });

  test("every compiled-in module declares its codes in its folder's errors.ts, and its events (if any) in events.ts", () => {
    const misplaced = BUILTIN_MODULES.flatMap((m) => {
      const folder = join(ROOT, 'src/modules', m.id);
      return [
        ...(m.errors && !existsSync(join(folder, 'errors.ts')) ? [`${m.id}: errors.ts`] : []),
        ...(m.events && !existsSync(join(folder, 'events.ts')) ? [`${m.id}: events.ts`] : []),
      ];
    });
    expect(misplaced).toEqual([]);
    expect(BUILTIN_MODULES.filter((m) => !m.errors).map((m) => m.id)).toEqual([]);
  });

  test("src/modules/contract.ts lists every compiled-in module's codes and events", () => {
    const events: Record<string, unknown> = EVENT_CATALOGUE;
    const unlisted = BUILTIN_MODULES.flatMap((m) => [
      ...Object.entries(m.errors ?? {}).filter(([code, status]) => ERROR_CATALOGUE[code] !== status).map(([code]) => `${m.id}: ${code}`),
      ...Object.entries(m.events ?? {}).filter(([type, spec]) => events[type] !== spec).map(([type]) => `${m.id}: ${type}`),
    ]);
    expect(unlisted).toEqual([]);
  });

  test('every compiled-in module offers routes, console commands and doctor sections', async () => {
    const gaps: string[] = [];
    for (const entry of BUILTIN_MODULES) {
      const module = await entry.load();
      for (const part of ['routes', 'commands', 'doctorChecks'] as const) if (!module[part]) gaps.push(`${entry.id}: ${part}`);
    }
    expect(gaps).toEqual([]);
  });
});

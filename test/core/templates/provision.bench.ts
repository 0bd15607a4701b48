/**
 * Timings for a 10,000-file template: `bun test/core/templates/provision.bench.ts`.
 * Not a test (no `.test.` in the name): prints a table, asserts nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeCopySupport } from '../../../src/core/templates/copy-probe';
import { hashDirectories } from '../../../src/core/templates/hash';
import { provisionStack, type ProvisionOptions } from '../../../src/core/templates/provision';
import { writeLargeTemplate } from './large-template';

const FILES = Number(process.env.FILES ?? 10_000);
const base = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'svc-provision-bench-'));
try {
  const template = join(base, 'template');
  writeLargeTemplate(template, FILES);
  console.log(`${FILES} files under ${base}: copy support`, probeCopySupport(template, join(base, 'probe')));
  let n = 0;
  const run = async (label: string, options: ProvisionOptions, work = join(base, `work${n++}`)) => {
    const started = performance.now();
    const r = await provisionStack([template], work, options);
    const ms = performance.now() - started;
    console.log(`${label.padEnd(44)} ${ms.toFixed(0).padStart(6)} ms  reflinked=${r.reflinked} hardlinked=${r.hardlinked} copied=${r.copied} kept=${r.kept}`);
    return work;
  };
  for (let i = 0; i < 3; i++) await run('fresh, hardlinks', { hardlinks: true });
  for (let i = 0; i < 3; i++) await run('fresh, no hardlinks (plain copies)', { hardlinks: false });
  const existing = await run('fresh, hardlinks (for the reruns below)', { hardlinks: true });
  await run('again over it, overwrite:false (static)', { hardlinks: true, overwrite: false }, existing);
  await run('again over it, overwrite:true (replace all)', { hardlinks: true }, existing);
  const started = performance.now();
  await hashDirectories([template]);
  console.log(`${'hash of the template'.padEnd(44)} ${(performance.now() - started).toFixed(0).padStart(6)} ms`);
} finally {
  rmSync(base, { recursive: true, force: true });
}

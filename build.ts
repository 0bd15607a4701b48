/**
 * Builds the single `svc` executable: one per target into dist/, or only this machine's with
 * `--host`. SQL migrations and package.json's version are embedded (the default svc.toml is
 * rendered from its schema), so the binary runs alone in an empty directory.
 *
 *   bun run build            every target
 *   bun run build --host     this machine's target only
 *   bun run build --outfile <path> --host
 */
import { parseArgs } from 'node:util';
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { STARTUP_JIT_POLICY } from './src/jit-policy';
import { dashboardEmbedding } from './src/build/dashboard-embed';

/**
 * Written by `bun run record-order` (src/build/record-bytecode-order.ts); a build without it is
 * correct, only its start touches more pages. test/architecture/layout.test.ts checks it is there.
 */
export const BYTECODE_ORDER = join(import.meta.dir, 'src', 'build', 'startup.bytecode-order');

export const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'windows-x64'] as const;
export type Target = (typeof TARGETS)[number];

export function hostTarget(): Target {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const target = `${os}-${process.arch}`;
  if (!(TARGETS as readonly string[]).includes(target)) throw new Error(`no build target for this machine (${target})`);
  return target as Target;
}

export function binaryName(target: Target): string {
  return `svc-${target}${target.startsWith('windows') ? '.exe' : ''}`;
}

/** Every worker thread's code (each file under src/ named *.worker.ts): entry points of their own, which src/core/threads/worker-thread.ts starts by path. */
export function workerEntryPoints(): string[] {
  return [...new Bun.Glob('src/**/*.worker.ts').scanSync({ cwd: import.meta.dir })].sort().map((path) => join(import.meta.dir, path));
}

/** Compiles one target; returns the written path. `version` replaces package.json's (release builds, update tests). */
export async function buildTarget(target: Target, outfile: string, options: { version?: string } = {}): Promise<string> {
  // The dashboard's files, embedded (src/dashboard/files.ts reads them).
  const dashboard = await dashboardEmbedding();
  const result = await Bun.build({
    plugins: [dashboard.plugin],
    define: options.version ? { SVC_BUILD_VERSION: JSON.stringify(options.version) } : {},
    entrypoints: [join(import.meta.dir, 'src/main.ts'), ...workerEntryPoints()],
    compile: {
      target: `bun-${target}` as Bun.Build.CompileTarget,
      outfile,
      // The operator's working directory configures svc through svc.toml and the real
      // environment only: never pick up a stray .env, bunfig.toml, tsconfig or package.json.
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
      // Run-once start-up code stays in the interpreter; main.ts restores the normal policy
      // once the command serves (src/jit-policy.ts has the figures).
      jitPolicy: STARTUP_JIT_POLICY,
      // The bytecode a start runs, laid out together (src/build/record-bytecode-order.ts): 5.9 → 3.4 MiB
      // of the payload resident with every module.
      bytecodeOrder: existsSync(BYTECODE_ORDER) && BYTECODE_ORDER,
    },
    // Identifiers stay readable, so logged stack traces make sense without a sourcemap (which costs
    // about 1 MB of resident memory when embedded).
    minify: { whitespace: true, syntax: true, identifiers: false },
    sourcemap: 'none',
    // Precompiled bytecode: the first answer comes ~80 ms sooner (≈140 vs ≈220 ms with every
    // module) and idle memory is the same (measured 87.4 vs 87.5 MiB), since parsing the source
    // costs what the cache holds.
    bytecode: true,
    format: 'esm',
    // Code behind a dynamic import goes in chunks of its own, loaded when first imported: an
    // uninstalled module or an unused feature costs neither start time nor memory (measured with
    // every module: 80 → 75 MiB idle; `svc version` peaks at 39 instead of 49 MiB).
    splitting: true,
  }).finally(() => dashboard.done());
  if (!result.success) {
    throw new AggregateError(result.logs, `build of ${target} failed:\n${result.logs.map(String).join('\n')}`);
  }
  return outfile;
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Bun.argv.slice(2), options: { host: { type: 'boolean' }, outfile: { type: 'string' }, 'release-version': { type: 'string' } } });
  const targets: Target[] = values.host ? [hostTarget()] : [...TARGETS];
  if (values.outfile && targets.length !== 1) throw new Error('--outfile needs --host');
  const dist = join(import.meta.dir, 'dist');
  mkdirSync(dist, { recursive: true });
  for (const target of targets) {
    const started = performance.now();
    const outfile = values.outfile ? resolve(values.outfile) : join(dist, binaryName(target));
    await buildTarget(target, outfile, { version: values['release-version'] });
    console.log(`built ${outfile} (${target}) in ${Math.round(performance.now() - started)} ms`);
  }
  // What `svc update` checks a release's binaries against (sign it to SHA256SUMS.sig for update_public_key).
  if (!values.outfile) {
    const sums: string[] = [];
    for (const target of targets) {
      const file = join(dist, binaryName(target));
      sums.push(`${new Bun.CryptoHasher('sha256').update(await Bun.file(file).arrayBuffer()).digest('hex')}  ${binaryName(target)}`);
    }
    await Bun.write(join(dist, 'SHA256SUMS'), `${sums.join('\n')}\n`);
    console.log(`wrote ${join(dist, 'SHA256SUMS')}`);
  }
}

import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { binaryName, hostTarget } from '../../build';

const REPO = join(import.meta.dir, '../..');

/** The commit that was released as 0.13.0 (the last release before cluster enrolment and per-service credentials). */
export const RELEASE_0_13_0 = 'dc91037';

/** Whether this checkout holds the commit (a shallow clone may not). */
export function hasCommit(commit: string): boolean {
  return Bun.spawnSync(['git', '-C', REPO, 'cat-file', '-e', `${commit}^{commit}`]).exitCode === 0;
}

const built = new Map<string, Promise<string>>();

/**
 * The svc binary as it was built at `commit`, for upgrade tests: the tree exported with
 * `git archive`, its locked dependencies installed, `bun build.ts --host`. Cached per commit
 * under the temp dir (a finished binary is renamed into place, so a half-built one is never used).
 */
export function releasedBinary(commit: string): Promise<string> {
  let pending = built.get(commit);
  if (!pending) {
    pending = build(commit);
    built.set(commit, pending);
  }
  return pending;
}

async function build(commit: string): Promise<string> {
  const cache = join(tmpdir(), 'svc-test-binaries');
  const final = join(cache, `svc-at-${commit}`);
  if (existsSync(final)) return final;
  const tree = join(cache, `tree-${commit}-${process.pid}`);
  rmSync(tree, { recursive: true, force: true });
  mkdirSync(tree, { recursive: true });
  try {
    await run(['sh', '-c', `git -C "${REPO}" archive --format=tar "${commit}" | tar -x -C "${tree}"`], REPO);
    await run([process.execPath, 'install', '--frozen-lockfile'], tree);
    await run([process.execPath, 'build.ts', '--host'], tree);
    renameSync(join(tree, 'dist', binaryName(hostTarget())), final);
    return final;
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}

async function run(argv: string[], cwd: string): Promise<void> {
  const child = Bun.spawn(argv, { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NODE_ENV: 'production' } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${argv.join(' ')} exited ${code} in ${cwd}:\n${stdout}\n${stderr}`.slice(-4000));
}

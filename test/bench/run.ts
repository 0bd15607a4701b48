/**
 * `bun run bench [name...]`: runs every test/bench/*.bench.ts, or only the named ones
 * (`bun run bench startup` runs startup.bench.ts), each in its own bun process, one after
 * another, output streamed. Exits 1 when any failed, 2 on an unknown name.
 *
 *   BENCH_FILE_TIMEOUT_S   hard limit per bench file (default 900 s): SIGTERM, then SIGKILL
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const BENCH_DIR = import.meta.dir;
const SUFFIX = '.bench.ts';

function usage(available: string[]): string {
  return `usage: bun run bench [name...]   (names: ${available.join(', ') || 'none found'})`;
}

async function main(): Promise<number> {
  const available = readdirSync(BENCH_DIR)
    .filter((file) => file.endsWith(SUFFIX))
    .map((file) => file.slice(0, -SUFFIX.length))
    .sort();
  const args = Bun.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(usage(available));
    return 0;
  }
  const names = args.map((arg) => arg.replace(/^.*\//, '').replace(/\.bench\.ts$|\.ts$/, ''));
  const unknown = names.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    console.error(`unknown bench ${unknown.join(', ')}\n${usage(available)}`);
    return 2;
  }
  const selected = names.length > 0 ? names : available;
  if (selected.length === 0) {
    console.error(`no *${SUFFIX} files in ${BENCH_DIR}`);
    return 1;
  }

  const rawLimit = Number(process.env.BENCH_FILE_TIMEOUT_S ?? 900);
  const limitMs = (Number.isFinite(rawLimit) && rawLimit > 0 ? rawLimit : 900) * 1000;
  let current: Bun.Subprocess | undefined;
  let interrupted = false;
  const forward = (signal: NodeJS.Signals): void => {
    interrupted = true;
    current?.kill(signal);
  };
  process.on('SIGINT', () => forward('SIGINT'));
  process.on('SIGTERM', () => forward('SIGTERM'));

  const outcomes: { name: string; ok: boolean; seconds: number; note: string }[] = [];
  for (const name of selected) {
    if (interrupted) break;
    const file = join(BENCH_DIR, `${name}${SUFFIX}`);
    console.log(`\n######## ${relative(process.cwd(), file)} ########\n`);
    const started = performance.now();
    const child = Bun.spawn([process.execPath, file], { stdin: 'ignore', stdout: 'inherit', stderr: 'inherit', env: process.env });
    current = child;
    let note = '';
    const timer = setTimeout(() => {
      note = `timed out after ${limitMs / 1000} s`;
      child.kill('SIGTERM'); // the bench cleans up its children on SIGTERM
      setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
    }, limitMs);
    const code = await child.exited;
    clearTimeout(timer);
    current = undefined;
    if (!note && code !== 0) note = child.signalCode ? `killed by ${child.signalCode}` : `exit code ${code}`;
    outcomes.push({ name, ok: code === 0 && !note, seconds: (performance.now() - started) / 1000, note });
  }

  console.log('\n######## summary ########');
  for (const { name, ok, seconds, note } of outcomes) {
    console.log(`${ok ? 'ok    ' : 'FAILED'} ${name.padEnd(12)} ${seconds.toFixed(1).padStart(6)} s${note ? `  (${note})` : ''}`);
  }
  if (interrupted) console.log('interrupted');
  return outcomes.every((o) => o.ok) && !interrupted && outcomes.length === selected.length ? 0 : 1;
}

process.exit(await main());

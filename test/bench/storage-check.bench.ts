/**
 * The database check at start (`PRAGMA quick_check` through a read-only connection, then the
 * write probe: storage/db.ts openCheckedDatabase) on a realistic database, beside its peers in
 * the same run: opening the same file without any check (what the start did before), and the
 * full `PRAGMA integrity_check` the start does not run.
 *
 * The database: core's schema with 30 days of 10 s samples of BENCH_CHECK_SERVICES services
 * (the [metrics] retention_days default), 30 days of network samples, 90 days of audit entries
 * (500 a day) and service events: about what a busy network keeps.
 *
 *   bun run bench storage-check
 *   BENCH_CHECK_SERVICES=10 BENCH_CHECK_DAYS=30
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import { openCheckedDatabase, openDatabase, quickCheck } from '../../src/storage/db';
import { migrate } from '../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../src/storage/core-migrations';
import { benchTimeoutMs, envNumber, fixed, formatTable, makeTempDir, median, runBench } from './lib';

const SERVICES = envNumber('BENCH_CHECK_SERVICES', 10);
const DAYS = envNumber('BENCH_CHECK_DAYS', 30);
const RUNS = 5;
const DAY = 24 * 3600 * 1000;

function build(file: string): void {
  const db = openDatabase(file);
  migrate(db, 'core', CORE_MIGRATIONS);
  const start = Date.now() - DAYS * DAY;
  const sample = db.prepare('INSERT INTO service_metrics (ts, service, memory_used_mb, memory_max_mb, player_count) VALUES (?, ?, ?, ?, ?)');
  const network = db.prepare('INSERT INTO network_samples (ts, total_players, by_group, up_services, down_services) VALUES (?, ?, ?, ?, ?)');
  const audit = db.prepare('INSERT INTO audit_log (ts, actor, action, target, details) VALUES (?, ?, ?, ?, ?)');
  const events = db.prepare('INSERT INTO service_events (ts, kind, service, grp, value) VALUES (?, ?, ?, ?, ?)');
  const ticks = (DAYS * DAY) / 10_000;
  for (let from = 0; from < ticks; from += 10_000) {
    db.transaction(() => {
      for (let tick = from; tick < Math.min(ticks, from + 10_000); tick++) {
        const ts = start + tick * 10_000;
        for (let s = 0; s < SERVICES; s++) sample.run(ts, `Lobby-${s + 1}`, 900 + ((tick * 7 + s) % 600), 2048, (tick + s) % 80);
        network.run(ts, (tick % 500) + 20, '{"Lobby":120,"Proxy":200}', SERVICES, 0);
        if (tick % 170 === 0) audit.run(ts, 'admin', 'SERVICE_STARTED', `Lobby-${tick % SERVICES}`, 'group=Lobby, node=local');
        if (tick % 900 === 0) events.run(ts, 'STARTUP', `Lobby-${tick % SERVICES}`, 'Lobby', 12_000 + (tick % 3000));
      }
    })();
  }
  db.run('PRAGMA wal_checkpoint(TRUNCATE)');
  db.close();
}

function time(work: () => void): number {
  const started = performance.now();
  work();
  return performance.now() - started;
}

runBench('storage-check', benchTimeoutMs(900), async () => {
  const dir = makeTempDir('svc-bench-check-');
  const file = join(dir, 'svc.db');
  const builtIn = time(() => build(file));
  const size = statSync(file).size;
  console.log(`database: ${(size / 1024 / 1024).toFixed(0)} MiB (${SERVICES} services × ${DAYS} days of 10 s samples), built in ${(builtIn / 1000).toFixed(1)} s`);

  const plain: number[] = [];
  const checked: number[] = [];
  const quick: number[] = [];
  const integrity: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    plain.push(time(() => openDatabase(file).close()));
    checked.push(time(() => openCheckedDatabase(file).close()));
    const db = new Database(file, { readonly: true });
    quick.push(time(() => quickCheck(db)));
    integrity.push(time(() => db.query('PRAGMA integrity_check').all()));
    db.close();
  }
  const rows = [
    ['open at start, checked (quick_check + write probe)', fixed(median(checked)), fixed(median(plain)), fixed(median(checked) / median(plain), 0)],
    ['quick_check alone', fixed(median(quick)), fixed(median(integrity)), fixed(median(quick) / median(integrity), 2)],
  ];
  console.log(formatTable(['figure (median of 5, ms)', 'ms', 'peer ms (open unchecked | integrity_check)', 'ratio'], rows));
  console.log(`quick_check: ${fixed((median(quick) / (size / 1024 / 1024 / 1024)) / 1000, 2)} s per GiB`);
});

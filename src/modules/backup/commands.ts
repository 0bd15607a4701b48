import { CommandFailure, UsageError, type Command } from '../../core/commands/command';
import { dispatchSubcommands, subcommandUsage, type SubcommandHandler } from '../../core/commands/subcommands';
import type { BackupRow } from './model';
import { RETENTION_CLASSES } from './config';
import type { BackupRuntime } from './runtime';
import { typesOf } from './sources';

const USAGE = 'backup <now|list|status|restore|verify|prune|schedule> …';
const SUBCOMMANDS = [
  { name: 'now', description: 'Back up now (in the background)', usage: 'backup now [--type <services|dedicated|templates|config|database|state_sync|all>] [--target <service>]' },
  { name: 'list', description: 'Backups, newest first', usage: 'backup list [--limit N] [--target <name>]' },
  { name: 'status', description: 'Running backups, the destination and the schedules', usage: 'backup status' },
  { name: 'restore', description: 'Restore a backup where it came from (or --target)', usage: 'backup restore <id> [--target <path>] [--dry-run] [--force]', args: ['number'] },
  { name: 'verify', description: 'Re-read an archive against its manifest and checksum', usage: 'backup verify <id>', args: ['number'] },
  { name: 'prune', description: 'Apply retention now', usage: `backup prune [--dry-run] [--retention-class <${RETENTION_CLASSES.join('|')}>]` },
  { name: 'schedule', description: 'The schedules with their last and next runs', usage: 'backup schedule list' },
] as const;

const usageOf = (name: (typeof SUBCOMMANDS)[number]['name']): string => subcommandUsage(SUBCOMMANDS, name);

/** `--name value` options and `--flag` switches out of the arguments; the rest stays positional. */
function options(args: readonly string[], valued: readonly string[], usage: string): { values: Map<string, string>; flags: Set<string>; rest: string[] } {
  const values = new Map<string, string>();
  const flags = new Set<string>();
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    const name = arg.slice(2);
    if (valued.includes(name)) {
      const value = args[++i];
      if (value === undefined) throw new UsageError(usage, `${arg} needs a value`);
      values.set(name, value);
    } else flags.add(name);
  }
  return { values, flags, rest };
}

function idOf(raw: string | undefined, usage: string): number {
  if (raw === undefined || !/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw new UsageError(usage, raw === undefined ? 'give the backup id' : `"${raw}" is not a backup id`);
  return Number(raw);
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const describe = (b: BackupRow) =>
  `#${b.id} ${b.status} ${b.targetType.toLowerCase()} ${b.targetName} (${b.scheduleClass}) ${new Date(b.startedAt).toISOString()}${b.archivePath ? ` ${mib(b.sizeBytes)} ${b.archivePath}` : ''}${b.errorMessage ? ` — ${b.errorMessage}` : ''}`;

/** `backup`: the backup module from the console (and /api/commands with an admin credential). */
export function backupCommand(runtime: BackupRuntime): Command {
  const { manager, scheduler } = runtime;
  const subcommands: Record<string, SubcommandHandler> = {
    now(ctx, args) {
      const { values, flags, rest } = options(args, ['type', 'target'], usageOf('now'));
      if (rest.length > 0 || flags.size > 0) throw new UsageError(usageOf('now'));
      const type = values.get('type');
      const single = values.get('target');
      const rows = manager.trigger({
        types: typesOf(type ? [type] : [], runtime.config().scope),
        ...(single ? { single } : {}),
        scheduleClass: 'manual',
        scheduleName: '',
        triggeredBy: ctx.actor,
        actor: ctx.actor,
      });
      ctx.out.success(`started ${rows.length} backup(s) in the background: ${rows.map((r) => `#${r.id} ${r.targetType.toLowerCase()} ${r.targetName}`).join(', ')}`);
    },
    list(ctx, args) {
      const { values, flags, rest } = options(args, ['limit', 'target'], usageOf('list'));
      if (rest.length > 0 || flags.size > 0) throw new UsageError(usageOf('list'));
      const limit = Math.min(1000, Math.max(1, Number(values.get('limit') ?? 20) || 20));
      const target = values.get('target');
      const { rows, total } = runtime.store.list(target ? { target } : {}, limit, 0);
      ctx.out.header(`${total} backup(s)${total > rows.length ? ` (newest ${rows.length} shown)` : ''}`);
      for (const row of rows) ctx.out.item(describe(row));
    },
    status(ctx) {
      ctx.out.header(`${manager.activeJobs()} backup(s) running; archives in ${manager.destination()} (${mib(manager.archiveBytes())})`);
      for (const s of scheduler.views()) ctx.out.item(`${s.name} "${s.cron}" ${s.retentionClass} [${s.targets.join(', ')}] last ${s.lastRunAt ?? 'never'} ${s.lastStatus} next ${s.nextRunAt ?? '—'}`);
    },
    async restore(ctx, args) {
      const { values, flags, rest } = options(args, ['target'], usageOf('restore'));
      if (rest.length !== 1) throw new UsageError(usageOf('restore'));
      const target = values.get('target');
      const outcome = await manager.restore(idOf(rest[0], usageOf('restore')), { ...(target ? { targetPath: target } : {}), dryRun: flags.has('dry-run'), force: flags.has('force') }, ctx.actor);
      ctx.out.success(`${outcome.dryRun ? 'would restore' : 'restored'} ${outcome.filesExtracted} file(s) into ${outcome.targetPath}`);
      if (outcome.dryRun) for (const f of outcome.files.slice(0, 50)) ctx.out.item(f);
    },
    async verify(ctx, args) {
      if (args.length !== 1) throw new UsageError(usageOf('verify'));
      const result = await manager.verify(idOf(args[0], usageOf('verify')));
      if (result.valid) return ctx.out.success(`backup #${args[0]} is intact`);
      for (const error of result.errors) ctx.out.error(error);
      throw new CommandFailure(`backup #${args[0]} failed verification (${result.errors.length} problem(s))`);
    },
    async prune(ctx, args) {
      const { values, flags, rest } = options(args, ['retention-class'], usageOf('prune'));
      if (rest.length > 0) throw new UsageError(usageOf('prune'));
      const retentionClass = values.get('retention-class');
      const result = await manager.prune({ dryRun: flags.has('dry-run'), ...(retentionClass ? { retentionClass } : {}) }, ctx.actor);
      ctx.out.success(`${result.dryRun ? 'would delete' : 'deleted'} ${result.deleted} backup(s), ${mib(result.freedBytes)}`);
      for (const error of result.errors) ctx.out.error(error);
    },
    schedule(ctx, args) {
      if (args.length > 1 || (args.length === 1 && args[0] !== 'list')) throw new UsageError(usageOf('schedule'));
      for (const s of scheduler.views()) ctx.out.item(`${s.name} "${s.cron}" ${s.retentionClass} [${s.targets.join(', ')}] next ${s.nextRunAt ?? '—'}`);
    },
  };
  return {
    name: 'backup',
    aliases: ['backups'],
    description: 'Backups: run now, list, restore, verify, prune, schedules',
    usage: USAGE,
    permission: 'svc.command.backup',
    level: 'admin',
    subcommands: SUBCOMMANDS,
    run: dispatchSubcommands(USAGE, subcommands),
  };
}

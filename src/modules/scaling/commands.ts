import { UsageError, type Command } from '../../core/commands/command';
import { dispatchSubcommands, subcommandUsage, type SubcommandHandler } from '../../core/commands/subcommands';
import { HISTORY_HOURS } from './model';
import type { ScalingRuntime } from './runtime';
import { configOf, historyView, predictionsView, scheduleView, statusView } from './views';

const USAGE = 'scaling <status|schedule|history|predict|reload> …';
const SUBCOMMANDS = [
  { name: 'status', description: 'Groups, the rule in force, the effective minimum and the latest decisions', usage: 'scaling status' },
  { name: 'schedule', description: 'The schedules (list) or one group\'s rules (info)', usage: 'scaling schedule <list|info <group>>' },
  { name: 'history', description: 'Hourly players and services of a group', usage: `scaling history <group> [hours ${HISTORY_HOURS.min}..${HISTORY_HOURS.max}]`, args: ['group', 'number'] },
  { name: 'predict', description: 'The next 6 hours as predicted from the last 4 weeks', usage: 'scaling predict <group>', args: ['group'] },
  { name: 'reload', description: 'Read every group\'s file in config/modules/scaling/ again', usage: 'scaling reload' },
] as const;

const usageOf = (name: (typeof SUBCOMMANDS)[number]['name']): string => subcommandUsage(SUBCOMMANDS, name);
const hhmm = (iso: string) => iso.slice(11, 16);

/** `scaling`: smart scaling from the console (and /api/commands). */
export function scalingCommand(runtime: ScalingRuntime): Command {
  const subcommands: Record<string, SubcommandHandler> = {
    status(ctx, args) {
      if (args.length > 0) throw new UsageError(usageOf('status'));
      const status = statusView(runtime);
      ctx.out.header(`${status.groups.length} scalable group(s)`);
      for (const g of status.groups) {
        const rule = g.activeRule ? `, ${g.activeRule.isWarmup ? 'warming up for' : 'in force:'} "${g.activeRule.name}"` : '';
        const state = g.problem ? `file unusable: ${g.problem}` : `schedule ${g.enabled ? 'on' : 'off'} (${g.ruleCount} rule(s), ${g.timezone})${rule}; prediction ${g.predictionEnabled ? 'on' : 'off'}`;
        ctx.out.item(`${g.group}: min ${g.effectiveMinInstances}${g.effectiveSource ? ` by ${g.effectiveSource}` : ''} (own ${g.minInstances}); ${state}`);
      }
      if (status.recentDecisions.length > 0) ctx.out.header('latest decisions');
      for (const d of status.recentDecisions) ctx.out.item(`${d.timestamp} ${d.group} ${d.action} (${d.source}): ${d.reason}`);
    },
    schedule(ctx, args) {
      const [what, group, ...extra] = args;
      if (what === 'list' && group === undefined) {
        for (const s of runtime.configs.all().map(scheduleView)) ctx.out.item(`${s.group}: ${s.enabled ? 'on' : 'off'}, ${s.rules.length} rule(s), ${s.timezone}, warm-up ${s.warmup.enabled ? `${s.warmup.leadTimeMinutes} min` : 'off'}, prediction ${s.prediction.enabled ? `p${s.prediction.percentile}` : 'off'}`);
        for (const broken of runtime.configs.brokenFiles()) ctx.out.error(`${broken.group}: ${broken.file}: ${broken.problem}`);
        return;
      }
      if (what !== 'info' || group === undefined || extra.length > 0) throw new UsageError(usageOf('schedule'));
      const s = scheduleView(configOf(runtime, group).config);
      ctx.out.header(`${s.group}: schedule ${s.enabled ? 'on' : 'off'} in ${s.timezone}; warm-up ${s.warmup.enabled ? `${s.warmup.leadTimeMinutes} min ahead` : 'off'}; prediction ${s.prediction.enabled ? `p${s.prediction.percentile}` : 'off'}`);
      if (s.rules.length === 0) ctx.out.item('no rules');
      for (const r of s.rules) ctx.out.item(`${r.name}: ${r.days.map((d) => d.slice(0, 3)).join(',')} ${r.from}-${r.to} min ${r.minInstances}${r.maxInstances === null ? '' : ` max ${r.maxInstances}`}`);
    },
    history(ctx, args) {
      const [group, rawHours, ...extra] = args;
      if (group === undefined || extra.length > 0) throw new UsageError(usageOf('history'));
      if (rawHours !== undefined && !/^\d{1,6}$/.test(rawHours)) throw new UsageError(usageOf('history'), `"${rawHours}" is not a number of hours`);
      const hours = Math.min(HISTORY_HOURS.max, Math.max(HISTORY_HOURS.min, rawHours === undefined ? HISTORY_HOURS.default : Number(rawHours)));
      const history = historyView(runtime, group, hours);
      ctx.out.header(`${history.group}: ${history.snapshots.length} hour(s) with samples in the last ${hours}`);
      for (const h of history.snapshots) ctx.out.item(`${h.timestamp.slice(0, 13)}:00Z players ${h.playerCount} (peak ${h.peakPlayerCount}) services ${h.serviceCount}`);
    },
    predict(ctx, args) {
      if (args.length !== 1) throw new UsageError(usageOf('predict'));
      const p = predictionsView(runtime, args[0]!);
      ctx.out.header(`${p.group}: p${p.percentile} of the same hour over the last 4 weeks (${p.timezone})`);
      for (const h of p.predictions) ctx.out.item(`${h.dayOfWeek.slice(0, 3)} ${String(h.hour).padStart(2, '0')}:00 (${hhmm(h.timestamp)}Z): ${h.predictedPlayers} players → ${h.predictedInstances} instance(s), ${h.dataPoints} samples`);
    },
    reload(ctx, args) {
      if (args.length > 0) throw new UsageError(usageOf('reload'));
      const { loaded, broken } = runtime.reload();
      ctx.out.success(`read ${loaded + broken.length} file(s): ${loaded} in use${broken.length > 0 ? `, ${broken.length} unusable` : ''}`);
      for (const b of broken) ctx.out.error(`${b.file}: ${b.problem}`);
    },
  };
  return {
    name: 'scaling',
    description: 'Smart scaling: schedules, history, predictions, decisions',
    usage: USAGE,
    permission: 'svc.command.scaling',
    level: 'service',
    subcommands: SUBCOMMANDS,
    run: dispatchSubcommands(USAGE, subcommands),
  };
}


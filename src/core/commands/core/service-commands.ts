import type { Kernel } from '../../../kernel';
import { humanDuration } from '../../network-status';
import { serviceLogLines } from '../../services/log-lines';
import { serviceView } from '../../services/view';
import { expectArgs, intArg, parseFlags } from '../args';
import { CommandFailure, type Command, type CommandOutput } from '../command';
import { waitForServiceOutcome } from '../wait-for-service';
import { supervisorRunDir } from '../../isolation';
import { monotonicNow } from '../../time/monotonic';

/** How long `start` and `restart` follow a new service before handing back the prompt. */
export const FOLLOW_START_MS = 120_000;
/** Most instances one `start` launches. */
const MAX_START_COUNT = 50;

/** Services: start, stop, restart, exec, logs, and `screen` (console only). */
export function serviceCommands(kernel: Kernel): Command[] {
  const { manager, services, bus } = kernel;
  const requireService = (name: string) => {
    const found = services.get(name);
    if (!found) throw new CommandFailure(`service "${name}" does not exist; \`list\` shows the services`);
    return found;
  };

  /** Follows a started service to READY (or its end), printing progress. */
  const follow = async (out: CommandOutput, name: string, since: number, wait: boolean) => {
    if (!wait) return;
    const outcome = services.get(name)?.state === 'READY' ? 'READY' : await waitForServiceOutcome(bus, name, FOLLOW_START_MS);
    const seconds = ((monotonicNow() - since) / 1000).toFixed(1);
    const record = services.get(name);
    if (outcome === 'READY') out.success(`${name} is READY on port ${record?.port ?? '?'} (${seconds} s)`);
    else if (outcome === 'TIMEOUT') out.info(`${name} is still starting after ${seconds} s; \`list\` shows when it is READY`);
    else throw new CommandFailure(`${name} ${outcome === 'CRASHED' ? 'crashed' : 'stopped'} while starting${record?.diagnosis ? `: ${record.diagnosis}` : ''}; \`logs ${name} --stdout\` shows why`);
  };

  const start: Command = {
    name: 'start',
    description: 'Start new instances of a group and follow them until READY',
    usage: 'start <group> [count] [--no-wait]',
    permission: 'svc.command.start',
    level: 'service',
    args: ['group', 'number'],
    async run({ args, out, actor }) {
      const { positional, flags } = parseFlags(start, args);
      const [group, countWord] = expectArgs(start, positional, 1, 2);
      if (!kernel.groups.get(group!)) throw new CommandFailure(`group "${group}" does not exist; \`groups\` lists them`);
      const count = intArg(start, countWord, 1, 1, MAX_START_COUNT);
      const wait = !flags.has('no-wait');
      const began = monotonicNow();
      const started: string[] = [];
      for (let i = 0; i < count; i++) {
        const record = await manager.start(group!, actor);
        started.push(record.name);
        out.info(`${record.name} is starting on port ${record.port}`);
      }
      await Promise.all(started.map((name) => follow(out, name, began, wait)));
      if (!wait) out.success(`${started.length} instance(s) of ${group} starting`);
    },
  };

  const stop: Command = {
    name: 'stop',
    description: 'Stop services gracefully: players moved off, `stop`, killed after the timeout',
    usage: 'stop <service> [service…] [--force]',
    permission: 'svc.command.stop',
    level: 'service',
    args: ['service', 'service', 'service', 'service'],
    async run({ args, out, actor }) {
      const { positional, flags } = parseFlags(stop, args);
      const names = expectArgs(stop, positional, 1, 64);
      for (const name of names) requireService(name);
      await Promise.all(
        names.map(async (name) => {
          const began = monotonicNow();
          out.info(`stopping ${name}${flags.has('force') ? ' (forced: players are not moved first)' : ''}`);
          await manager.stop(name, actor, { force: flags.has('force') });
          out.success(`${name} stopped (${((monotonicNow() - began) / 1000).toFixed(1)} s)`);
        }),
      );
    },
  };

  const restart: Command = {
    name: 'restart',
    description: 'Stop a service, start a fresh instance of its group and follow it until READY',
    usage: 'restart <service> [--no-wait]',
    permission: 'svc.command.restart',
    level: 'service',
    args: ['service'],
    async run({ args, out, actor }) {
      const { positional, flags } = parseFlags(restart, args);
      const [name] = expectArgs(restart, positional, 1);
      requireService(name!);
      const began = monotonicNow();
      out.info(`stopping ${name}`);
      const fresh = await manager.restart(name!, actor);
      out.info(`${name} stopped; ${fresh.name} is starting on port ${fresh.port}`);
      await follow(out, fresh.name, began, !flags.has('no-wait'));
      if (flags.has('no-wait')) out.success(`${name} restarted as ${fresh.name}`);
    },
  };

  const exec: Command = {
    name: 'exec',
    aliases: ['execute'],
    description: "Write a command line to a service's console",
    usage: 'exec <service> <command…>',
    permission: 'svc.command.exec',
    level: 'service',
    args: ['service', 'text'],
    run({ args, out }) {
      const [name, ...words] = expectArgs(exec, args, 2, 512);
      requireService(name!);
      manager.exec(name!, words.join(' '));
      out.success(`sent to ${name}: ${words.join(' ')}`);
    },
  };

  const logs: Command = {
    name: 'logs',
    description: "The last lines of a service's log (logs/latest.log, or --stdout for the process output)",
    usage: 'logs <service> [lines] [--stdout]',
    permission: 'svc.command.logs',
    level: 'service',
    args: ['service', 'number'],
    run({ args, out }) {
      const { positional, flags } = parseFlags(logs, args);
      const [name, countWord] = expectArgs(logs, positional, 1, 2);
      const record = requireService(name!);
      const count = intArg(logs, countWord, 30, 1, 1000);
      const source = flags.has('stdout') ? 'stdout' : 'app';
      const lines = serviceLogLines(record, manager.handleOf(record.name), source, count, supervisorRunDir(kernel.paths.data));
      out.header(`${record.name}: last ${lines.length} line(s) of ${source === 'app' ? 'logs/latest.log' : 'the process output'}`);
      if (lines.length === 0) out.info(source === 'app' ? 'nothing logged yet; try --stdout for the process output' : 'no output yet');
      for (const line of lines) out.text(line);
    },
  };

  const info: Command = {
    name: 'info',
    description: 'Everything about one service',
    usage: 'info <service>',
    permission: 'svc.command.info',
    level: 'service',
    args: ['service'],
    run({ args, out }) {
      const [name] = expectArgs(info, args, 1);
      const view = serviceView(requireService(name!));
      out.header(`${view.name} (${view.groupName})`);
      out.item(`state: ${view.state}${view.customState ? ` · ${view.customState}` : ''}`);
      out.item(`address: ${view.host}:${view.port}${view.pid === null ? '' : ` · pid ${view.pid}`}`);
      out.item(`players: ${view.playerCount}`);
      out.item(`memory: ${view.memoryUsedMb} / ${view.memoryMaxMb} MB`);
      out.item(`tps: ${view.tps ?? 'not reported'} · ${view.healthy ? 'healthy' : 'unhealthy'}`);
      out.item(`uptime: ${view.startedAt ? humanDuration(view.uptimeSeconds) : 'not running'} · restarts ${view.restartCount}`);
      if (view.diagnosis) out.error(`last failure: ${view.diagnosis}`);
    },
  };

  const screen: Command = {
    name: 'screen',
    description: "Attach this console to a service's console; a key leaves it",
    usage: 'screen <service>',
    permission: '',
    level: 'admin',
    args: ['service'],
    run() {
      throw new CommandFailure('screen attaches an interactive console (the controller terminal or `svc cli`) to a service; over the API use the service console socket');
    },
  };

  return [start, stop, restart, exec, logs, info, screen];
}

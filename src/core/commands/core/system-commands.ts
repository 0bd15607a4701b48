import type { Kernel } from '../../../kernel';
import { reloadConfiguration } from '../../groups/reload';
import { humanDuration } from '../../network-status';
import { expectArgs, intArg, parseFlags } from '../args';
import { CommandFailure, UsageError, type Command } from '../command';
import { CONFIRM_WINDOW_MS, Confirmations } from '../confirmations';
import type { CommandRegistry } from '../registry';
import { secondsSinceMono } from '../../time/monotonic';

/** The controller itself: help, version, reload, audit, api, shutdown, and `clear` (console only). */
export function systemCommands(kernel: Kernel, registry: CommandRegistry, confirmations = new Confirmations()): Command[] {
  const help: Command = {
    name: 'help',
    description: 'The commands, or how to use one',
    usage: 'help [command]',
    permission: 'svc.command.help',
    level: 'service',
    args: ['command'],
    run({ args, out }) {
      const [word] = expectArgs(help, args, 0, 1);
      if (word === undefined) {
        out.header('commands (help <command> for details)');
        for (const c of registry.all()) out.item(`${c.name.padEnd(12)} ${c.description}${c.permission === '' ? ' (interactive console only)' : ''}`);
        return;
      }
      const command = registry.find(word);
      if (!command) throw new CommandFailure(`no command "${word}"; \`help\` lists them`);
      out.header(command.usage);
      out.text(command.description);
      if (command.aliases?.length) out.info(`aliases: ${command.aliases.join(', ')}`);
      for (const sub of command.subcommands ?? []) out.item(`${sub.usage}: ${sub.description}`);
    },
  };

  const version: Command = {
    name: 'version',
    description: 'The controller version and the runtime',
    usage: 'version',
    permission: 'svc.command.version',
    level: 'service',
    run({ args, out }) {
      expectArgs(version, args, 0);
      out.header(`svc ${kernel.version}`);
      out.item(`runtime: Bun ${Bun.version} on ${process.platform}-${process.arch}`);
      out.item(`up ${humanDuration(secondsSinceMono(kernel.startedMono))}, since ${kernel.startedAt.toISOString()}`);
    },
  };

  const reload: Command = {
    name: 'reload',
    description: 'Re-read the group files, svc.toml, proxy and maintenance settings',
    usage: 'reload',
    permission: 'svc.command.reload',
    level: 'admin',
    run({ args, out, actor }) {
      expectArgs(reload, args, 0);
      const report = reloadConfiguration(kernel, actor);
      for (const section of report.sections) out.item(`${section.name}: ${section.applied ? 'applied' : 'not applied'} (${section.scope}) ${section.description}`);
      for (const warning of report.warnings) out.error(warning);
      if (!report.success) throw new CommandFailure(report.message);
      out.success(report.message);
    },
  };

  const audit: Command = {
    name: 'audit',
    description: 'The newest entries of the audit log',
    usage: 'audit [count] [--action <ACTION>] [--actor <actor>]',
    permission: 'svc.command.audit',
    level: 'admin',
    args: ['number'],
    run({ args, out }) {
      const { positional, flags } = parseFlags(audit, args, ['action', 'actor']);
      const [countWord] = expectArgs(audit, positional, 0, 1);
      const limit = intArg(audit, countWord, 20, 1, 500);
      const action = flags.get('action');
      const actor = flags.get('actor');
      const { entries, total } = kernel.audit.list({ limit, offset: 0, action: typeof action === 'string' ? action : undefined, actor: typeof actor === 'string' ? actor : undefined });
      out.header(`${entries.length} of ${total} audit entries, newest first`);
      for (const e of entries) out.item(`${e.timestamp.replace('T', ' ').slice(0, 19)}  ${e.actor}  ${e.action}${e.target ? ` ${e.target}` : ''}${e.details ? `  ${e.details}` : ''}`);
    },
  };

  const api: Command = {
    name: 'api',
    description: 'How the API is reached and which credentials it takes (secrets are never shown whole)',
    usage: 'api',
    permission: 'svc.command.api',
    level: 'admin',
    run({ args, out }) {
      expectArgs(api, args, 0);
      const { config, apiToken } = kernel;
      out.header(config.api.enabled ? `API on ${config.api.bind}:${config.api.port}` : 'API disabled ([api] enabled = false)');
      const where = apiToken.source === 'environment' ? 'SVC_API_TOKEN' : apiToken.source === 'config' ? '[api] token in svc.toml' : `generated, kept in ${apiToken.file}`;
      out.item(`master token: ${config.api.token.slice(0, 8)}… (${where})`);
      out.item('service token: derived from the master token (HMAC-SHA256 of "svc-service-token"), for plugins configured by hand; every server gets its own credential as SVC_API_TOKEN');
      out.item(`JWT tokens: ${config.api.jwt_enabled ? 'enabled (POST /api/tokens mints them)' : 'disabled ([api] jwt_enabled = false)'}`);
      out.item(`allowed origins: ${config.api.allowed_origins.length === 0 ? 'any (set [api] allowed_origins)' : config.api.allowed_origins.join(', ')}`);
    },
  };

  const shutdown: Command = {
    name: 'shutdown',
    aliases: ['end'],
    description: `Stop every service and the controller; needs \`shutdown confirm\` within ${CONFIRM_WINDOW_MS / 1000} s`,
    usage: 'shutdown [confirm]',
    permission: 'svc.command.shutdown',
    level: 'admin',
    args: [['confirm']],
    run({ args, out, actor, caller }) {
      const [word] = expectArgs(shutdown, args, 0, 1);
      if (word === undefined) {
        confirmations.request(caller);
        const running = kernel.services.all().filter((s) => s.pid !== null).length;
        out.info(`this stops ${running} running service(s) and the controller`);
        out.info(`type \`shutdown confirm\` within ${CONFIRM_WINDOW_MS / 1000} s to go ahead`);
        return;
      }
      if (word.toLowerCase() !== 'confirm') throw new UsageError(shutdown.usage, `unexpected "${word}"`);
      if (!confirmations.confirm(caller)) throw new CommandFailure(`nothing to confirm: type \`shutdown\` first, then \`shutdown confirm\` within ${CONFIRM_WINDOW_MS / 1000} s`);
      out.success('shutting down: services stop first, then the controller');
      kernel.requestShutdown('shutdown confirmed on the console', actor);
    },
  };

  const clear: Command = {
    name: 'clear',
    aliases: ['cls'],
    description: 'Clear the console screen',
    usage: 'clear',
    permission: '',
    level: 'service',
    run() {
      throw new CommandFailure('clear is done by your console itself; there is nothing to clear here');
    },
  };

  return [help, version, reload, audit, api, shutdown, clear];
}

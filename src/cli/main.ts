import { hostname, userInfo, type as osType, release, arch } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { CliClient } from '../core/commands/cli-sessions';
import { VERSION } from '../version';
import { cliConfigDir, ProfileFile } from './profile';
import { dirTarget, type DirTarget } from './dir-target';
import { ConnectionError, RemoteConsole } from './remote-transport';
import { renderLine } from './render';
import { InteractiveShell } from './shell';

export const CLI_USAGE = `svc cli: the remote console of an svc controller

Usage:
  svc cli [options]                 an interactive console (completion, history, screen)
  svc cli [options] -c "<command>"  run one command, print its output, exit
  svc cli --dir <path> [-c …]       the controller of that working directory, with its token
                                    (data/api-token or [api] token), on the same machine

Options:
  --url <url>         the controller's API, e.g. http://10.0.0.5:8080 (default: the profile's,
                      else http://127.0.0.1:8080)
  --token <token>     the master token or an admin JWT (prefer SVC_API_TOKEN or a profile:
                      a token on the command line is visible to other users in ps)
  --dir <path>        a controller's working directory on this machine: its address from
                      data/controller.json (else [api] of svc.toml) and its master token from
                      [api] token or data/api-token (readable by the controller's user)
  --profile <name>    use a saved profile (default: "default")
  --save              save --url and --token as the profile, then go on
  -c, --command <c>   run one command and exit
  --no-color          no colours (also when NO_COLOR is set or output is not a terminal)
  --no-events         do not print live events in the interactive console

Environment: SVC_URL, SVC_API_TOKEN, SVC_PROFILE. Profiles live in ${'$'}XDG_CONFIG_HOME/svc/cli.toml
(~/.config/svc/cli.toml), owner-only.

Exit status: 0 done, 1 the command failed, 2 usage, 3 no connection or the token was refused.
`;

const EXIT = { ok: 0, failed: 1, usage: 2, connection: 3 } as const;

interface Streams {
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  stderr: NodeJS.WriteStream;
}

/** `svc cli …`: returns the exit status. */
export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io: Streams = process): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        url: { type: 'string' },
        token: { type: 'string' },
        dir: { type: 'string' },
        profile: { type: 'string' },
        save: { type: 'boolean' },
        command: { type: 'string', short: 'c' },
        'no-color': { type: 'boolean' },
        'no-events': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }).values;
  } catch (error) {
    io.stderr.write(`svc cli: ${(error as Error).message}\n\n${CLI_USAGE}`);
    return EXIT.usage;
  }
  if (values.help) {
    io.stdout.write(CLI_USAGE);
    return EXIT.ok;
  }

  // --dir: the controller of a working directory on this machine, read as it reads it.
  let local: DirTarget | undefined;
  if (values.dir !== undefined) {
    try {
      local = dirTarget(values.dir, env);
    } catch (error) {
      io.stderr.write(`svc cli: ${(error as Error).message}\n`);
      return EXIT.usage;
    }
  }

  const profiles = new ProfileFile(cliConfigDir(env));
  const profileName = values.profile ?? env.SVC_PROFILE ?? 'default';
  let saved;
  try {
    saved = profiles.get(profileName);
  } catch (error) {
    io.stderr.write(`svc cli: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (values.profile !== undefined && !saved && !values.save && !local) {
    const names = profiles.names();
    io.stderr.write(`svc cli: no profile "${profileName}"${names.length ? ` (saved: ${names.join(', ')})` : ''}; create it with --url, --token and --save\n`);
    return EXIT.usage;
  }
  // What is named on this command line (--url, --token, --dir) wins over the environment, which wins over a profile.
  const url = values.url ?? (local ? local.url : (env.SVC_URL || saved?.url)) ?? 'http://127.0.0.1:8080';
  // An empty variable is no token (as the controller reads it), so the next source counts.
  const token = values.token ?? (env.SVC_API_TOKEN || local?.token || saved?.token);
  if (!/^https?:\/\/[^/]/.test(url) || !URL.canParse(url)) {
    io.stderr.write(`svc cli: --url must be an http:// or https:// address, not "${url}"\n`);
    return EXIT.usage;
  }
  if (!token && local?.tokenProblem) {
    io.stderr.write(`svc cli: no token: ${local.tokenProblem}\n`);
    return EXIT.usage;
  }
  if (!token) {
    io.stderr.write('svc cli: no token: pass --token, set SVC_API_TOKEN, or save a profile (--url … --token … --save)\n');
    return EXIT.usage;
  }
  if (values.save) {
    try {
      profiles.save(profileName, { url, token });
    } catch (error) {
      io.stderr.write(`svc cli: ${(error as Error).message}\n`);
      return EXIT.usage;
    }
    io.stderr.write(`saved profile "${profileName}" in ${profiles.path}\n`);
  }

  const colored = !values['no-color'] && !env.NO_COLOR && Boolean(io.stdout.isTTY);
  const client = describeClient();
  if (values.command !== undefined) return runOnce({ url, token, client, command: values.command, colored, io });
  if (!io.stdin.isTTY) {
    io.stderr.write('svc cli: standard input is not a terminal; run one command with -c "<command>"\n');
    return EXIT.usage;
  }
  return runInteractive({ url, token, client, colored, showEvents: !values['no-events'], io, historyFile: join(cliConfigDir(env), 'history') });
}

async function runOnce(o: { url: string; token: string; client: CliClient; command: string; colored: boolean; io: Streams }): Promise<number> {
  const remote = new RemoteConsole({ url: o.url, token: o.token, client: o.client, reconnect: false });
  try {
    await remote.connect();
  } catch (error) {
    o.io.stderr.write(`svc cli: ${connectionMessage(error, o.url)}\n`);
    return EXIT.connection;
  }
  // Lines are printed as they arrive, so a long operation shows its progress.
  const result = await remote.execute(o.command, (line) => o.io.stdout.write(`${renderLine(line, o.colored)}\n`));
  remote.close();
  return result.success ? EXIT.ok : EXIT.failed;
}

async function runInteractive(o: { url: string; token: string; client: CliClient; colored: boolean; showEvents: boolean; io: Streams; historyFile: string }): Promise<number> {
  let status: number = EXIT.ok;
  let shell: InteractiveShell | undefined;
  const remote = new RemoteConsole({
    url: o.url,
    token: o.token,
    client: o.client,
    reconnect: true,
    onFatal: (message) => {
      status = EXIT.connection;
      shell?.print(renderLine({ kind: 'error', text: message }, o.colored));
      shell?.close();
    },
  });
  try {
    await remote.connect();
  } catch (error) {
    o.io.stderr.write(`svc cli: ${connectionMessage(error, o.url)}\n`);
    return EXIT.connection;
  }
  const host = new URL(o.url).host;
  shell = new InteractiveShell({
    transport: remote,
    input: o.io.stdin,
    output: o.io.stdout,
    prompt: o.colored ? `\x1b[36msvc@${host}\x1b[0m » ` : `svc@${host} » `,
    colored: o.colored,
    historyFile: o.historyFile,
    showEvents: () => o.showEvents,
    exitWords: true,
    banner: `svc cli ${VERSION}: connected to ${o.url}. \`help\` lists the commands, Tab completes, \`exit\` or Ctrl+D leaves.`,
  });
  await shell.closed;
  remote.close();
  return status;
}

function connectionMessage(error: unknown, url: string): string {
  if (error instanceof ConnectionError) return error.message;
  return `could not reach ${url}: ${(error as Error).message}`;
}

/** What the hello tells the controller about this end. */
function describeClient(): CliClient {
  let username = process.env.USER || process.env.LOGNAME || 'unknown';
  try {
    // Bun answers "unknown" when it cannot tell; the environment's name is better then.
    const name = userInfo().username;
    if (name && name !== 'unknown') username = name;
  } catch {
    // no passwd entry (some containers): the environment's name, or unnamed
  }
  return { username, hostname: hostname(), os: `${osType()} ${release()} ${arch()}` };
}

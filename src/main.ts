#!/usr/bin/env bun
import { startupMark } from './startup-trace';
import { parseArgs } from 'node:util';
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import type { Controller } from './controller';
import { ConfigError, ensureConfigFile, loadConfig } from './config/load';
import { VERSION } from './version';
import { startupOver } from './jit-policy';
import { didYouMean } from './core/commands/suggest';
import { DirLock, DirLockedError, LOCK_FD_ENV, type LockRole } from './core/lock/dir-lock';
// Read before any update can rename a new file over the running one.
import './core/update/running-binary';

const USAGE = `svc ${VERSION}: controller for Minecraft server networks

Usage:
  svc [controller] [options]   run the controller (the default)
  svc init [options]           write a commented svc.toml and the folders, then exit
  svc doctor [--json]          check this machine and the config without starting the controller
                               (exit 0: ok or warnings, 1: failures, 2: the config cannot be read)
  svc agent [options]          run a cluster node: services for a controller on this machine
                               (reads <dir>/agent.toml, written with defaults on first start)
  svc cli [--dir <path>]       the console of a running controller, here (--dir) or remote
                               (svc cli --help)
  svc update [--help]          replace this binary with a newer release; a running controller
                               restarts in place and its game servers keep running
  svc restart [--dir <path>]   restart the controller running on that directory in place: its
                               game servers keep running (the same as SIGUSR2, systemctl reload)
  svc version                  print the version
  svc --help                   this text

Options:
  --dir <path>       working directory holding svc.toml, config/, data/, templates/,
                     services/ and logs/ (default: the current directory)
  --config <file>    configuration file (default: <dir>/svc.toml)

Stopping: SIGTERM, SIGINT, \`systemctl stop\` and \`shutdown\` on the console stop every game server,
then the controller. SIGUSR2, \`svc restart\`, \`systemctl reload\` and \`svc update\` restart the
controller in place and keep them running; after a crash or kill -9 the next start re-attaches them.

Environment:
  SVC_API_TOKEN, SVC_CLUSTER_TOKEN, SVC_DB_TYPE|HOST|PORT|NAME|USERNAME|PASSWORD
  override svc.toml; SVC_LOG_FORMAT=json logs JSON lines.
`;

/** After the start, the one full garbage collection waits this long (the first requests go first). */
const POST_START_GC_DELAY_MS = 250;

/** The words `svc <command>` knows, for "did you mean". */
const TOP_COMMANDS = ['controller', 'init', 'doctor', 'agent', 'cli', 'update', 'restart', 'version', 'help'];

/** Exit status for configuration and usage mistakes. */
const EXIT_USAGE = 2;

async function main(argv: string[]): Promise<number> {
  // The remote console has options of its own (and is interactive from its first screen).
  if (argv[0] === 'cli') {
    startupOver();
    return (await import('./cli/main')).runCli(argv.slice(1));
  }
  // So does the updater (its --version names a release, not "print the version").
  if (argv[0] === 'update') return (await import('./cli/update-command')).runUpdate(argv.slice(1));
  if (argv[0] === 'restart') return (await import('./cli/restart-command')).runRestart(argv.slice(1));
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        dir: { type: 'string' },
        config: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    process.stderr.write(`svc: ${(error as Error).message}\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const { values, positionals } = parsed;
  const command = positionals[0] ?? 'controller';
  if (values.help || command === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  if (values.version || command === 'version') {
    process.stdout.write(`svc ${VERSION}\n`);
    return 0;
  }
  if (positionals.length > 1) {
    process.stderr.write(`svc: unexpected argument "${positionals[1]}"\n\n${USAGE}`);
    return EXIT_USAGE;
  }
  const dir = resolve(values.dir ?? '.');
  const configPath = values.config ? resolve(values.config) : join(dir, 'svc.toml');
  switch (command) {
    case 'controller':
      return runController(dir, configPath);
    case 'init':
      return init(dir, configPath);
    case 'doctor':
      return doctor(dir, configPath, values.json === true);
    case 'agent':
      return runAgent(dir, values.config ? resolve(values.config) : join(dir, 'agent.toml'));
    default:
      process.stderr.write(`svc: unknown command "${command}"${didYouMean(command, TOP_COMMANDS)}\n\n${USAGE}`);
      return EXIT_USAGE;
  }
}

function init(dir: string, configPath: string): number {
  try {
    const written = ensureConfigFile(configPath);
    loadConfig(configPath); // validate what is there, written now or before
    for (const folder of ['config', 'data', 'templates', 'services', 'dedicated', 'logs']) mkdirSync(join(dir, folder), { recursive: true });
    process.stdout.write(written ? `wrote ${configPath}\n` : `${configPath} already exists; left unchanged\n`);
    process.stdout.write(nextSteps(dir, configPath));
    return 0;
  } catch (error) {
    return reportStartError(error);
  }
}

/** What `svc init` tells a new operator to do next (the README's walkthrough, short). */
function nextSteps(dir: string, configPath: string): string {
  const at = dir === resolve('.') ? '' : ` --dir ${dir}`;
  return `
Next steps:
  1. Edit ${configPath}: [network] name, [api] bind and port (default 127.0.0.1:8080),
     [java] java_21 (the Java for Minecraft 1.20.5+; blank = java on PATH), [services] isolation.
  2. svc doctor${at}
     checks Java, isolation, ports, folders and the config before anything runs.
  3. svc${at}
     starts the controller with a console here (or as a service: systemctl enable --now svc,
     see README "Install"). The master token is generated into ${join(dir, 'data', 'api-token')}.
  4. On its console, the proxy and a lobby:
       group create Proxy VELOCITY 3.4.0-SNAPSHOT --min 1
       group create Lobby PAPER 1.21.1 --type LOBBY --min 1
     From another terminal: svc cli${at} -c "status"
  Backups run by themselves: hourly (services, dedicated, database), daily and weekly (everything)
  into data/backups; config/modules/backup/backup.toml changes that (enabled = false pauses them).
`;
}

/**
 * Takes the working directory's lock before anything in it is touched; a refusal names the
 * holder. Returns the exit status when it cannot be taken.
 */
function lockDir(dir: string, role: LockRole): DirLock | number {
  try {
    return DirLock.acquire(dir, role, VERSION);
  } catch (error) {
    return reportStartError(error);
  }
}

/** Why the process before this exec restarted in place (main.ts sets it for the new binary). */
const RESTART_REASON_ENV = 'SVC_RESTARTED_IN_PLACE';

function takeRestartReason(): string | undefined {
  const reason = process.env[RESTART_REASON_ENV];
  delete process.env[RESTART_REASON_ENV];
  return reason || undefined;
}

async function runController(dir: string, configPath: string): Promise<number> {
  // One controller per directory, checked before the config, the log, the database or a service is touched.
  const lock = lockDir(dir, 'controller');
  if (typeof lock === 'number') return lock;
  const restartedInPlace = takeRestartReason();
  // Signals are handled from the first moment (before any code is loaded): one that arrives
  // while the controller is still starting acts as soon as the start completes. A second stop
  // signal means "now".
  let controller: Controller | undefined;
  let terminal: InstanceType<typeof import('./terminal/terminal-console').TerminalConsole> | undefined;
  let pending: NodeJS.Signals | undefined;
  let signals = 0;
  const exit = (code: number) => {
    terminal?.close();
    // A clean stop says so in the lock file; any other exit frees the lock all the same.
    if (code === 0) lock.release();
    process.exit(code);
  };
  const stop = (signal: NodeJS.Signals) => {
    // The prompt goes first, so the last log lines print plainly.
    terminal?.close();
    void controller!.stop(`signal ${signal}`).then(() => exit(0));
  };
  const act = (signal: NodeJS.Signals) => {
    if (signal === 'SIGUSR2') controller!.restartInPlace('signal SIGUSR2');
    else stop(signal);
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (signal !== 'SIGUSR2' && ++signals > 1) exit(1);
    if (controller) act(signal);
    else if (pending !== 'SIGTERM' && pending !== 'SIGINT') pending = signal;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // A restart in place that keeps every game server running (systemctl reload, `svc restart`).
  process.on('SIGUSR2', onSignal);
  // Loaded here, not at the top: `svc cli`, `version` and `init` start without the server's code.
  startupMark('main: entry modules evaluated');
  const onTerminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const [{ Controller }, TerminalConsole] = await Promise.all([import('./controller'), onTerminal ? import('./terminal/terminal-console').then((m) => m.TerminalConsole) : null]);
  startupMark('controller code imported');
  // On a terminal the operator gets an interactive console; under systemd (no TTY) it stays silent.
  terminal = TerminalConsole ? new TerminalConsole() : undefined;
  try {
    controller = await Controller.start({
      dir,
      configPath,
      stdout: terminal?.sink,
      stdoutIsTerminal: terminal ? true : undefined,
      exit,
      restartInPlace: (reason) => handOver(reason, terminal, lock),
      lock: { file: lock.file, stale: lock.stale },
      restartedInPlace,
    });
  } catch (error) {
    terminal?.close();
    lock.release();
    return reportStartError(error);
  }
  lock.update({ state: 'ready', ...(controller.port ? { api: controller.url } : {}) });
  if (pending) act(pending);
  startupOver();
  // Ctrl+C reaches the console as a key, not a signal, while it reads the terminal; it asks first.
  terminal?.open(controller.kernel, () => onSignal('SIGINT'));
  // Start-up leaves a lot of transient garbage (config parsing, schema compilation, migrations):
  // one full collection returns it, so the idle footprint is what the controller really holds.
  // A moment later, not now: it blocks for ~15 ms, which the first requests should not wait for.
  setTimeout(() => Bun.gc(true), POST_START_GC_DELAY_MS).unref();
  // The process runs until a signal or POST /api/shutdown exits it, even with nothing else
  // holding the event loop open (the API can be disabled).
  setInterval(() => undefined, 1 << 30);
  return new Promise<number>(() => undefined);
}

/**
 * After a self-update or a restart request (SIGUSR2, `svc restart`) the controller (or agent)
 * has stopped without stopping any service: the binary takes this process's place (same pid, so
 * systemd and the terminal keep it; the directory's lock is handed over with it) and re-attaches
 * them. When exec is impossible, a service manager starts it instead (exit 75, the unit
 * restarts on failure), or, outside one, a detached child with the same arguments.
 */
async function handOver(reason: string, terminal: { close(): void } | undefined, lock: DirLock): Promise<never> {
  const [{ execInPlace }, { RUNNING_BINARY }] = await Promise.all([import('./core/update/reexec'), import('./core/update/running-binary')]);
  terminal?.close();
  // Under `bun src/main.ts` the script is an argument of bun's; a compiled svc is its own program.
  const args = RUNNING_BINARY ? process.argv.slice(2) : process.argv.slice(1);
  const binary = RUNNING_BINARY ?? process.execPath;
  const env: Record<string, string | undefined> = { ...process.env, [RESTART_REASON_ENV]: reason };
  const problem = execInPlace(binary, args, env, [lock.handOver(env)]);
  process.stderr.write(`svc: ${reason}: ${problem}\n`);
  // The next process takes the lock itself: free it (without "stopped": services still run).
  delete env[LOCK_FD_ENV];
  lock.close();
  if (!process.env.INVOCATION_ID) Bun.spawn([binary, ...args], { env, stdio: ['ignore', 'inherit', 'inherit'], detached: true }).unref();
  process.exit(75);
}

async function doctor(dir: string, configPath: string, json: boolean): Promise<number> {
  const [{ offlineDoctor }, { renderDoctorReport }] = await Promise.all([import('./core/doctor/offline'), import('./core/doctor/render')]);
  try {
    const report = await offlineDoctor(dir, configPath, process.env);
    process.stdout.write(json ? `${JSON.stringify(report, null, 2)}\n` : renderDoctorReport(report, Boolean(process.stdout.isTTY)));
    return report.status === 'fail' ? 1 : 0;
  } catch (error) {
    return reportStartError(error);
  }
}

async function runAgent(dir: string, configPath: string): Promise<number> {
  // An agent and a controller (or two agents) on one directory would fight over its services.
  const lock = lockDir(dir, 'agent');
  if (typeof lock === 'number') return lock;
  takeRestartReason();
  // Signals from the first moment: before the agent is up (it may wait for its controller) a
  // stop signal ends it at once and SIGUSR2 hands over at once; there is nothing to stop yet.
  let agent: Awaited<ReturnType<typeof import('./agent/run').startAgent>> | undefined;
  let signals = 0;
  const exit = (code: number) => {
    if (code === 0) lock.release();
    process.exit(code);
  };
  // A signal stops the agent, not its services: they keep running and are re-attached next start.
  const onStop = () => {
    if (++signals > 1 || !agent) exit(signals > 1 ? 1 : 0);
    else void agent.stop().then(() => exit(0));
  };
  process.on('SIGTERM', onStop);
  process.on('SIGINT', onStop);
  // SIGUSR2 (systemctl reload, `svc restart`): the agent process again, in place, its services kept.
  process.on('SIGUSR2', () => {
    if (++signals > 1) return;
    void (agent ? agent.stop() : Promise.resolve()).then(() => handOver('signal SIGUSR2', undefined, lock));
  });
  const { startAgent } = await import('./agent/run');
  const { TrustError } = await import('./agent/trust');
  try {
    agent = await startAgent({ dir, configPath, env: process.env, onShutdown: () => void agent!.stop({ stopServices: true }).then(() => exit(0)), onRestart: (reason) => void handOver(reason, undefined, lock) });
  } catch (error) {
    lock.release();
    if (error instanceof TrustError) {
      process.stderr.write(`svc agent: ${error.message}\n`);
      return 1;
    }
    return reportStartError(error);
  }
  lock.update({ state: 'ready' });
  startupOver();
  setInterval(() => undefined, 1 << 30);
  return new Promise<number>(() => undefined);
}

function reportStartError(error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`svc: ${error.message}\n`);
    return EXIT_USAGE;
  }
  if (error instanceof DirLockedError) {
    process.stderr.write(`svc: ${error.message}\n`);
    return 1;
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    process.stderr.write(`svc: the API port is already in use (${(error as Error).message}); change [api] port in svc.toml\n`);
    return 1;
  }
  const expected = expectedErrorMessage(error);
  if (expected) {
    process.stderr.write(`svc: ${expected}\n`);
    return 1;
  }
  process.stderr.write(`svc: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  return 1;
}

/**
 * A file system or network failure an operator can fix, as one line with the fix; null for
 * anything else (a bug keeps its stack trace).
 */
function expectedErrorMessage(error: unknown): string | null {
  const err = error as NodeJS.ErrnoException;
  if (!(error instanceof Error) || typeof err.code !== 'string') return null;
  // Atomic writes fail on their temp file: name the folder, which is what needs fixing.
  const path = typeof err.path === 'string' ? (/^\..+\.tmp$/.test(basename(err.path)) ? dirname(err.path) : err.path) : undefined;
  const user = currentUser();
  switch (err.code) {
    case 'EACCES':
    case 'EPERM':
      return `cannot write ${path ?? 'a file it needs'} (permission denied): svc runs as ${user} and needs to own its working directory; run it as the directory's owner, or: sudo chown -R ${user} ${path ? dirname(path) : '<dir>'}`;
    case 'EROFS':
      return `cannot write ${path ?? 'a file it needs'}: the file system is read-only; give svc a writable --dir (under systemd, add it to ReadWritePaths=)`;
    case 'ENOSPC':
    case 'EDQUOT':
      return `cannot write ${path ?? 'a file it needs'}: the disk is full (${err.code}); free some space (df -h ${path ? dirname(path) : '.'}) and start again`;
    case 'ENOTDIR':
    case 'EISDIR':
      return `${path ?? 'a path it needs'} is in the way (${err.code === 'ENOTDIR' ? 'a file where a folder belongs' : 'a folder where a file belongs'}); move it aside and start again`;
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'ETIMEDOUT':
    case 'ConnectionRefused':
    case 'FailedToOpenSocket':
      return `${err.message} (${err.code}): check the address and the network, then start again`;
    default:
      return null;
  }
}

function currentUser(): string {
  try {
    const name = userInfo().username;
    if (name && name !== 'unknown') return name;
  } catch {
    // no passwd entry
  }
  const uid = process.getuid?.();
  try {
    // Bun may not name a user it switched to (setpriv, runuser): /etc/passwd does.
    const entry = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => line.split(':'))
      .find((fields) => fields[2] === String(uid));
    if (entry?.[0]) return entry[0];
  } catch {
    // no passwd file
  }
  return process.env.USER || `uid ${uid ?? '?'}`;
}

const status = await main(process.argv.slice(2));
process.exit(status);

#!/usr/bin/env bun
import { startupMark } from './startup-trace';
import { parseArgs } from 'node:util';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Controller } from './controller';
import { ConfigError, ensureConfigFile, loadConfig } from './config/load';
import { VERSION } from './version';
import { startupOver } from './jit-policy';
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
  svc cli [--help]             the remote console of a controller (svc cli --help)
  svc update [--help]          replace this binary with a newer release; a running controller
                               restarts in place and its game servers keep running
  svc version                  print the version
  svc --help                   this text

Options:
  --dir <path>       working directory holding svc.toml, config/, data/, templates/,
                     services/ and logs/ (default: the current directory)
  --config <file>    configuration file (default: <dir>/svc.toml)

Environment:
  SVC_API_TOKEN, SVC_CLUSTER_TOKEN, SVC_DB_TYPE|HOST|PORT|NAME|USERNAME|PASSWORD
  override svc.toml; SVC_LOG_FORMAT=json logs JSON lines.
`;

/** After the start, the one full garbage collection waits this long (the first requests go first). */
const POST_START_GC_DELAY_MS = 250;

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
      process.stderr.write(`svc: unknown command "${command}"\n\n${USAGE}`);
      return EXIT_USAGE;
  }
}

function init(dir: string, configPath: string): number {
  try {
    const written = ensureConfigFile(configPath);
    loadConfig(configPath); // validate what is there, written now or before
    for (const folder of ['config', 'data', 'templates', 'services', 'dedicated', 'logs']) mkdirSync(join(dir, folder), { recursive: true });
    process.stdout.write(written ? `wrote ${configPath}\n` : `${configPath} already exists; left unchanged\n`);
    return 0;
  } catch (error) {
    return reportStartError(error);
  }
}

async function runController(dir: string, configPath: string): Promise<number> {
  // Loaded here, not at the top: `svc cli`, `version` and `init` start without the server's code.
  startupMark('main: entry modules evaluated');
  const onTerminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
  const [{ Controller }, TerminalConsole] = await Promise.all([import('./controller'), onTerminal ? import('./cli/terminal-console').then((m) => m.TerminalConsole) : null]);
  startupMark('controller code imported');
  // On a terminal the operator gets an interactive console; under systemd (no TTY) it stays silent.
  const terminal = TerminalConsole ? new TerminalConsole() : undefined;
  const exit = (code: number) => {
    terminal?.close();
    process.exit(code);
  };
  // Signals are handled from the first moment: one that arrives while the controller is still
  // starting stops it as soon as the start completes. A second signal means "now".
  let controller: Controller | undefined;
  let pendingSignal: NodeJS.Signals | undefined;
  let signals = 0;
  const stop = (signal: NodeJS.Signals) => {
    // The prompt goes first, so the last log lines print plainly.
    terminal?.close();
    void controller!.stop(`signal ${signal}`).then(() => exit(0));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) exit(1);
    if (controller) stop(signal);
    else pendingSignal = signal;
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    controller = await Controller.start({ dir, configPath, stdout: terminal?.sink, stdoutIsTerminal: terminal ? true : undefined, exit, restartInPlace: (reason) => handOver(reason, terminal) });
  } catch (error) {
    terminal?.close();
    return reportStartError(error);
  }
  if (pendingSignal) stop(pendingSignal);
  startupOver();
  // Ctrl+C reaches the console as a key, not a signal, while it reads the terminal.
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
 * After a self-update the controller (or agent) has stopped without stopping any service: the new binary
 * takes this process's place (same pid, so systemd and the terminal keep it) and re-attaches
 * them. When exec is impossible, a service manager starts it instead (exit 75, the unit
 * restarts on failure), or, outside one, a detached child with the same arguments.
 */
async function handOver(reason: string, terminal: { close(): void } | undefined): Promise<never> {
  const [{ execInPlace }, { RUNNING_BINARY }] = await Promise.all([import('./core/update/reexec'), import('./core/update/running-binary')]);
  terminal?.close();
  const args = process.argv.slice(2);
  const binary = RUNNING_BINARY ?? process.execPath;
  const problem = execInPlace(binary, args);
  process.stderr.write(`svc: ${reason}: ${problem}\n`);
  if (!process.env.INVOCATION_ID) Bun.spawn([binary, ...args], { stdio: ['ignore', 'inherit', 'inherit'], detached: true }).unref();
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
  const { startAgent } = await import('./agent/run');
  const { TrustError } = await import('./agent/trust');
  let agent: Awaited<ReturnType<typeof startAgent>>;
  const exit = (code: number) => process.exit(code);
  try {
    agent = await startAgent({ dir, configPath, env: process.env, onShutdown: () => void agent.stop({ stopServices: true }).then(() => exit(0)), onRestart: (reason) => void handOver(reason, undefined) });
  } catch (error) {
    if (error instanceof TrustError) {
      process.stderr.write(`svc agent: ${error.message}\n`);
      return 1;
    }
    return reportStartError(error);
  }
  startupOver();
  // A signal stops the agent, not its services: they keep running and are re-attached next start.
  let signals = 0;
  const onSignal = () => {
    if (++signals > 1) exit(1);
    void agent.stop().then(() => exit(0));
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  setInterval(() => undefined, 1 << 30);
  return new Promise<number>(() => undefined);
}

function reportStartError(error: unknown): number {
  if (error instanceof ConfigError) {
    process.stderr.write(`svc: ${error.message}\n`);
    return EXIT_USAGE;
  }
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    process.stderr.write(`svc: the API port is already in use (${(error as Error).message}); change [api] port in svc.toml\n`);
    return 1;
  }
  process.stderr.write(`svc: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  return 1;
}

const status = await main(process.argv.slice(2));
process.exit(status);

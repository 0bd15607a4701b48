import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load';
import { pathsOf } from '../config/paths';
import { updateTypeOf } from '../core/info/update-check';
import { fetchRelease } from '../core/update/release';
import { RUNNING_BINARY } from '../core/update/running-binary';
import { readControllerRuntime } from '../core/update/runtime-file';
import type { UpdateJob } from '../core/update/self-updates';
import { rollbackBinary, updateBinary, UpdateError } from '../core/update/updater';
import { savedMasterToken } from '../http/master-token';
import { VERSION } from '../version';
import { monotonicNow } from '../core/time/monotonic';

export const UPDATE_USAGE = `svc update: replace the svc binary with a newer release

Usage:
  svc update [--yes] [--version X] [--dry-run]   update to the latest release (or X)
  svc update --check                             say whether a newer release exists
  svc update --rollback [--yes]                  go back to the binary the last update replaced

Options:
  --dir <path>      the controller's working directory (default: the current directory)
  --config <file>   its svc.toml (default: <dir>/svc.toml)
  --yes, -y         do not ask before replacing the binary
  --version <X>     a release other than the latest (may be older)
  --dry-run         download and check everything, replace nothing

With a controller running on that directory, it does the update itself and restarts in place:
every game server keeps running. Without one, this binary is updated. The release comes from
[controller] update_check_url (SHA256SUMS checked, and its signature when update_public_key is set).
`;

const POLL_MS = 250;
const RESTART_TIMEOUT_MS = 120_000;

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Asks a yes/no question on the terminal; null when there is no terminal to ask on. */
  confirm: ((question: string) => Promise<boolean>) | null;
}

/** `svc update …`; returns the exit status (0 done or nothing to do, 1 failed, 2 usage). */
export async function runUpdate(argv: string[], io: Io = terminalIo()): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        dir: { type: 'string' },
        config: { type: 'string' },
        yes: { type: 'boolean', short: 'y' },
        version: { type: 'string' },
        check: { type: 'boolean' },
        rollback: { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    io.err(`svc update: ${(error as Error).message}\n\n${UPDATE_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(UPDATE_USAGE);
    return 0;
  }
  if (values.rollback && (values.version || values.check || values['dry-run'])) {
    io.err('svc update: --rollback takes no --version, --check or --dry-run\n');
    return 2;
  }
  const dir = resolve(values.dir ?? '.');
  const configPath = values.config ? resolve(values.config) : join(dir, 'svc.toml');
  if (!existsSync(configPath)) {
    io.err(`svc update: no ${configPath}; run it with --dir <the controller's directory>\n`);
    return 2;
  }
  let config;
  try {
    config = loadConfig(configPath).config;
  } catch (error) {
    io.err(`svc update: ${(error as Error).message}\n`);
    return 2;
  }
  const feedUrl = config.controller.update_check_url;
  if (!values.rollback && !feedUrl) {
    io.err('svc update: no release feed; set [controller] update_check_url in svc.toml\n');
    return 2;
  }
  const dataDir = pathsOf(dir, config).data;
  const running = readControllerRuntime(dataDir);
  const currentVersion = running?.version || VERSION;

  try {
    let target: string | null = null;
    if (!values.rollback) {
      const release = await fetchRelease({ feedUrl, version: values.version, userAgent: `svc/${VERSION}` });
      const type = updateTypeOf(currentVersion, release.version);
      if (release.version === currentVersion || (values.version === undefined && type === null)) {
        io.out(`svc ${currentVersion} is up to date (the latest release is ${release.version})\n`);
        return 0;
      }
      target = release.version;
      if (values.check) {
        io.out(`svc ${release.version} is available (${type ? type.toLowerCase() : 'older'}; this is ${currentVersion})${release.pageUrl ? `\n${release.pageUrl}` : ''}\n`);
        return 0;
      }
    }
    if (!values.yes && !values['dry-run']) {
      const question = values.rollback ? `Go back to the previous svc binary (this is ${currentVersion})?` : `Update svc ${currentVersion} → ${target}?`;
      if (!io.confirm) {
        io.err('svc update: not a terminal, so nothing to confirm on; add --yes\n');
        return 2;
      }
      if (!(await io.confirm(`${question}${running ? ' The controller restarts in place; game servers keep running.' : ''} [y/N] `))) {
        io.out('nothing changed\n');
        return 1;
      }
    }
    const request = { version: target ?? undefined, dryRun: values['dry-run'] === true, rollback: values.rollback === true };
    return running ? await throughController(running.url, dataDir, apiToken(config.api.token, dataDir), request, io) : await locally(feedUrl, config.controller.update_public_key, request, io);
  } catch (error) {
    io.err(`svc update: ${(error as Error).message}\n`);
    return 1;
  }
}

/** No controller on this directory: this binary updates itself. */
async function locally(feedUrl: string, publicKey: string, request: { version?: string; dryRun: boolean; rollback: boolean }, io: Io): Promise<number> {
  const binary = RUNNING_BINARY;
  if (!binary) {
    io.err('svc update: this is svc running from source under bun; update the checkout instead\n');
    return 1;
  }
  try {
    if (request.rollback) {
      const result = await rollbackBinary({ binary, currentVersion: VERSION });
      io.out(`${binary}: svc ${result.fromVersion} → ${result.toVersion} (rolled back)\n`);
      return 0;
    }
    const result = await updateBinary({ feedUrl, publicKey, currentVersion: VERSION, binary }, { version: request.version, dryRun: request.dryRun, onStage: (stage) => io.out(`${stage}…\n`) });
    if (result.outcome === 'up-to-date') io.out(`svc ${VERSION} is up to date\n`);
    else if (result.outcome === 'checked') io.out(`svc ${result.toVersion} downloaded and checked; nothing replaced (dry run)\n`);
    else io.out(`${binary}: svc ${result.fromVersion} → ${result.toVersion}; the old binary is kept as ${binary}.previous\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UpdateError)) throw error;
    io.err(`svc update: ${error.message}\nthe binary is unchanged\n`);
    return 1;
  }
}

/** A controller runs here: it does the work, with its own rights, and restarts in place. */
async function throughController(url: string, dataDir: string, token: string, request: { version?: string; dryRun: boolean; rollback: boolean }, io: Io): Promise<number> {
  const call = async (method: string, path: string, body?: unknown) => {
    // A fresh connection each time: the process behind this port is replaced mid-way.
    const response = await fetch(`${url}${path}`, { method, keepalive: false, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
    const json = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (!response.ok) throw new Error(`the controller refused: ${String(json.message ?? response.status)}`);
    return json;
  };
  const body: Record<string, unknown> = {};
  if (request.version) body.version = request.version;
  if (request.dryRun) body.dryRun = true;
  if (request.rollback) body.rollback = true;
  let job = (await call('POST', '/api/controller/update', body)) as unknown as UpdateJob;
  io.out(`the controller at ${url} is ${request.rollback ? 'rolling back' : `updating to ${job.targetVersion ?? 'the latest release'}`}\n`);
  let shown = '';
  for (;;) {
    if (job.state !== shown) {
      shown = job.state;
      if (!['failed', 'up-to-date', 'checked', 'restarting'].includes(job.state)) io.out(`${job.state}…\n`);
    }
    if (job.state === 'failed') {
      io.err(`svc update: ${job.error}\nthe binary is unchanged\n`);
      return 1;
    }
    if (job.state === 'up-to-date') {
      io.out(`svc ${job.currentVersion} is up to date\n`);
      return 0;
    }
    if (job.state === 'checked') {
      io.out(`svc ${job.targetVersion} downloaded and checked; nothing replaced (dry run)\n`);
      return 0;
    }
    if (job.state === 'restarting') break;
    await Bun.sleep(POLL_MS);
    try {
      const next = (await call('GET', '/api/controller/update')) as unknown as UpdateJob;
      // 'idle' after the job was taken: the answer came from the new process, which knows no
      // job (the old one exec'd it between two polls, faster than one poll interval). The job as
      // last seen keeps the versions the restart is judged by.
      job = next.state === 'idle' ? { ...job, state: 'restarting' } : next;
    } catch {
      // The controller went away between two polls: it is restarting.
      job = { ...job, state: 'restarting' };
    }
  }
  io.out(`restarting in place…\n`);
  const deadline = monotonicNow() + RESTART_TIMEOUT_MS;
  while (monotonicNow() < deadline) {
    await Bun.sleep(POLL_MS);
    // The new process rewrites data/controller.json (with port = 0 it listens elsewhere).
    const now = readControllerRuntime(dataDir)?.url ?? url;
    const health = await fetch(`${now}/api/health`, { keepalive: false, signal: AbortSignal.timeout(2_000) })
      .then((r) => (r.ok ? (r.json() as Promise<{ version: string }>) : null))
      .catch(() => null);
    // A rollback may end before its target was seen; then any other version is the new process.
    if (health && (job.targetVersion ? health.version === job.targetVersion : health.version !== job.currentVersion)) {
      io.out(`svc ${job.currentVersion} → ${health.version}; every service kept running\n`);
      return 0;
    }
  }
  io.err(`svc update: the controller did not come back as ${job.targetVersion} within ${RESTART_TIMEOUT_MS / 1000} s; see its log\n`);
  return 1;
}

/** The master token as the controller resolves it: SVC_API_TOKEN, [api] token, or the generated data/api-token. */
function apiToken(configured: string, dataDir: string): string {
  if (configured) return configured;
  let saved: string | null = null;
  try {
    saved = savedMasterToken(dataDir);
  } catch {
    // Unreadable: another user's file (mode 600).
  }
  if (!saved) throw new Error('no API token: set SVC_API_TOKEN, [api] token, or run this as the user that can read data/api-token');
  return saved;
}

function terminalIo(): Io {
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    confirm: process.stdin.isTTY
      ? async (question) => {
          process.stdout.write(question);
          for await (const line of console) return /^y(es)?$/i.test(line.trim());
          return false;
        }
      : null,
  };
}

import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FifoPool, launch, reattach, type ExitInfo, type LaunchSpec, type ProcessHandle, type ReattachOptions, type ReattachResult } from '../supervisor/process';
import { isOurWrapper } from '../supervisor/process/pid-probe';
import { readProcessRecord } from '../supervisor/process/process-record';
import { readExitFile } from '../supervisor/process/exit-file';
import { stateFiles } from '../supervisor/process/state-files';
import { giveFolderTo, killProcessesOf, prepareTempDir, setprivArgv } from './owner';
import type { Isolation } from './resolve';
import { runtimeDir, sandboxArgv, type SandboxLayout } from './sandbox';
import type { UidMap } from './uid-map';

export interface IsolatedLauncherOptions {
  isolation: Isolation;
  /** `<data>/run`: one state dir per service name, owner-only, out of every service's reach. */
  runDir: string;
  /** uid mode: the service uids. */
  uids?: UidMap;
  /** uid mode: absolute path of setpriv. */
  setpriv?: string;
  /** bwrap mode: the host's sandbox layout. */
  sandbox?: SandboxLayout;
  /** Folders a Java runtime bind must never expose (the controller's folder, data/, the config file's folder, ...). */
  forbidden: readonly string[];
}

/** Service names become folder names under data/run: nothing that could leave it. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;

/**
 * Launches services under the isolation chosen at start (resolve.ts), with their supervisor
 * state in `<data>/run/<name>` where no service can forge it (process.json names the pid the
 * controller signals; exit-code decides crash or stop). The argv the wrapper runs becomes
 *
 *   uid          setpriv --reuid=U --regid=U --clear-groups --no-new-privs ... -- <argv>
 *   bwrap        bwrap <mounts> -- timeout 0 <argv>
 *   uid+bwrap    setpriv ... -- bwrap <mounts> -- timeout 0 <argv>
 *
 * so the wrapper itself stays the controller's (it writes server.pid, exit-code and the log,
 * whose fds the server inherits already open). Re-attach is the supervisor's, unchanged: a
 * service launched by an earlier version is found through the state dir its entry names.
 *
 * Nothing of a service outlives it: the wrapper ends its process group, the sandbox's pid
 * namespace ends with its init, and in uid mode every process of the service's uid is killed
 * once it has ended (even one that left the group with setsid) before `exited` settles.
 */
export class IsolatedLauncher {
  private readonly fifos: FifoPool;

  constructor(private readonly options: IsolatedLauncherOptions) {
    mkdirSync(options.runDir, { recursive: true, mode: 0o700 });
    this.fifos = new FifoPool(join(options.runDir, '.fifos'));
  }

  get isolation(): Isolation {
    return this.options.isolation;
  }

  /** The state dir of a service (the same for every launch of the name). */
  stateDirOf(name: string): string {
    if (!SAFE_NAME.test(name)) throw new Error(`"${name}" cannot name a service folder`);
    return join(this.options.runDir, name);
  }

  /**
   * Before anything is written into a service's folder (state pull, templates, patches): in
   * uid mode every process its uid still runs is killed, so nothing a crashed server left
   * behind writes into the folder while it is provisioned. Refuses while the service's own
   * process still runs (a second start of a live name).
   */
  async vacate(name: string): Promise<void> {
    const files = stateFiles(this.stateDirOf(name));
    const record = readProcessRecord(files.record);
    if (record.ok && readExitFile(files.exitFile) === undefined && isOurWrapper(record.record.wrapperPid, record.record.marker)) {
      throw new Error(`${name} still runs (pid ${record.record.pid}); stop it first`);
    }
    const { uids, setpriv } = this.options;
    if (this.options.isolation.uid && uids && setpriv) await killProcessesOf(setpriv, uids.uidOf(name));
  }

  /** The folder is given to the service's uid (uid mode), then the process is launched isolated. */
  async launch(spec: LaunchSpec): Promise<ProcessHandle> {
    const { isolation, uids, setpriv, sandbox } = this.options;
    const stateDir = this.stateDirOf(spec.name);
    mkdirSync(stateDir, { recursive: true, mode: 0o700 });
    if (!isolation.uid && !isolation.bwrap) return launch({ ...spec, stateDir }, { fifos: this.fifos });

    const workDir = resolve(spec.workDir);
    mkdirSync(workDir, { recursive: true });
    const tmp = prepareTempDir(workDir);
    const env: Record<string, string> = { ...spec.env, HOME: workDir, TMPDIR: tmp };
    let argv = spec.argv;
    if (isolation.bwrap && sandbox) {
      const readOnly = runtimeDir(argv[0] ?? '', { cwd: workDir, path: env.PATH, forbidden: this.options.forbidden });
      argv = sandboxArgv(sandbox, { workDir, realWorkDir: realpathSync(workDir), readOnly: readOnly ? [readOnly] : [] }, argv);
    }
    if (isolation.uid && uids && setpriv) {
      const uid = uids.uidOf(spec.name);
      await giveFolderTo(workDir, uid);
      argv = [...setprivArgv(setpriv, uid), ...argv];
    }
    const handle = await launch({ ...spec, stateDir, env, argv, sandboxed: isolation.bwrap }, { fifos: this.fifos });
    return this.endingItsUid(handle);
  }

  async reattach(stateDir: string, options: ReattachOptions = {}): Promise<ReattachResult> {
    const result = await reattach(stateDir, options);
    if (result.kind === 'attached') return { kind: 'attached', handle: this.endingItsUid(result.handle) };
    // Ended while no controller watched: what it left running as its uid goes now, not at its next start.
    if (result.kind === 'ended') await this.killUidOf(readProcessRecord(stateFiles(stateDir).record));
    return result;
  }

  /** uid mode: `exited` settles once no process of the service's uid is left. */
  private endingItsUid(handle: ProcessHandle): ProcessHandle {
    const { uids, setpriv } = this.options;
    if (!this.options.isolation.uid || !uids || !setpriv) return handle;
    const uid = uids.uidOf(handle.name);
    return withExitSweep(handle, () => killProcessesOf(setpriv, uid));
  }

  private async killUidOf(record: ReturnType<typeof readProcessRecord>): Promise<void> {
    const { uids, setpriv } = this.options;
    if (!this.options.isolation.uid || !uids || !setpriv || !record.ok || !SAFE_NAME.test(record.record.name)) return;
    await killProcessesOf(setpriv, uids.uidOf(record.record.name)).catch(() => undefined);
  }

  /** Tests and a clean shutdown: no FIFO refill left running. */
  idle(): Promise<void> {
    return this.fifos.idle();
  }
}

/** The same handle, its `exited` settling only after `sweep` (whose failure it ignores: the exit is what it reports). */
function withExitSweep(handle: ProcessHandle, sweep: () => Promise<void>): ProcessHandle {
  const exited: Promise<ExitInfo> = handle.exited.then(async (exit) => {
    await sweep().catch(() => undefined);
    return exit;
  });
  return {
    name: handle.name,
    pid: handle.pid,
    wrapperPid: handle.wrapperPid,
    startedAt: handle.startedAt,
    stateDir: handle.stateDir,
    logFile: handle.logFile,
    survivesController: handle.survivesController,
    exited,
    onLine: (listener) => handle.onLine(listener),
    write: (line) => handle.write(line),
    signal: (signal) => handle.signal(signal),
    lastLines: (count) => handle.lastLines(count),
    isAlive: () => handle.isAlive(),
    close: () => handle.close(),
  };
}

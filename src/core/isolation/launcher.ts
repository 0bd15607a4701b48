import { mkdirSync, realpathSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { FifoPool, launch, reattach, type LaunchSpec, type ProcessHandle, type ReattachResult } from '../supervisor/process';
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
    return launch({ ...spec, stateDir, env, argv, sandboxed: isolation.bwrap }, { fifos: this.fifos });
  }

  reattach(stateDir: string): Promise<ReattachResult> {
    return reattach(stateDir);
  }

  /** Tests and a clean shutdown: no FIFO refill left running. */
  idle(): Promise<void> {
    return this.fifos.idle();
  }
}

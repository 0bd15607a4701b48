import type { Logger } from '../log';
import { RUNNING_BINARY } from '../core/update/running-binary';
import { updateBinary, UpdateError } from '../core/update/updater';
import { VERSION } from '../version';

export interface AgentRelease {
  feedUrl: string;
  publicKey: string;
}

/**
 * An agent follows its controller's version: told at login that the controller runs another
 * version, it installs exactly that release from the controller's feed, with every check of
 * `svc update`, then hands over to the new binary (services detached and re-attached, as after
 * an agent restart). One attempt per controller version, so a release that fails its checks
 * is not downloaded again at every reconnect.
 */
export class AgentSelfUpdate {
  private attempted = new Set<string>();
  private running = false;

  constructor(
    private readonly deps: {
      enabled: boolean;
      /** agent.toml's key; blank: the controller's. */
      publicKey: string;
      log: Logger;
      /** The binary is replaced: stop and exec it. */
      restart: (reason: string) => void;
      binary?: string | null;
      fetch?: typeof fetch;
    },
  ) {}

  consider(controllerVersion: string | undefined, release: AgentRelease | undefined): void {
    if (!controllerVersion || controllerVersion === VERSION || !this.deps.enabled || this.running || this.attempted.has(controllerVersion)) return;
    const binary = this.deps.binary === undefined ? RUNNING_BINARY : this.deps.binary;
    if (!binary || !release) {
      this.deps.log.warn(`the controller runs svc ${controllerVersion}, this agent ${VERSION}: ${!binary ? 'it runs from source, update it by hand' : 'the controller has no update_check_url to update from'}`);
      this.attempted.add(controllerVersion);
      return;
    }
    this.attempted.add(controllerVersion);
    this.running = true;
    void this.update(binary, controllerVersion, release).finally(() => (this.running = false));
  }

  private async update(binary: string, version: string, release: AgentRelease): Promise<void> {
    const { log } = this.deps;
    log.warn(`the controller runs svc ${version}, this agent ${VERSION}: updating to it`);
    try {
      const result = await updateBinary({ feedUrl: release.feedUrl, publicKey: this.deps.publicKey || release.publicKey, currentVersion: VERSION, binary, fetch: this.deps.fetch }, { version });
      if (result.outcome !== 'installed') return;
      log.warn(`svc ${result.toVersion} is installed; restarting in place (services keep running)`);
      this.deps.restart(`update to ${result.toVersion}`);
    } catch (error) {
      const message = error instanceof UpdateError ? error.message : `unexpected: ${(error as Error).message}`;
      log.error(`agent update to ${version} failed, the binary is unchanged: ${message}`);
    }
  }
}

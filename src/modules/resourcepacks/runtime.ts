import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourcePacksKernel } from './uses';
import type { Logger } from '../../log';
import { PackService } from './service';
import { publicBaseUrl } from './stack';
import { PackStore } from './store';
import { sweepPartFiles } from './upload';

/**
 * One controller's resource pack module: the registry tables, the pack files under
 * data/resourcepacks/ and the API address LOCAL pack URLs default to. Settings from svc.toml's
 * `[resourcepacks]` (a change needs a restart, as the spec lists).
 */
export class ResourcePacksRuntime {
  readonly store: PackStore;
  readonly service: PackService;
  readonly dir: string;
  readonly maxUploadBytes: number;
  /** The port the API listens on (known once it listens: API_STARTED), for the default base URL. */
  private apiPort: number;
  private readonly unsubscribe: () => void;

  constructor(
    readonly kernel: ResourcePacksKernel,
    log: Logger,
  ) {
    const settings = kernel.config.resourcepacks;
    this.maxUploadBytes = settings.max_upload_bytes;
    this.dir = join(kernel.paths.data, 'resourcepacks');
    mkdirSync(this.dir, { recursive: true, mode: 0o750 });
    // A directory others may write to lets anyone swap a pack the clients then apply: tighten it.
    chmodSync(this.dir, 0o750);
    const swept = sweepPartFiles(this.dir);
    if (swept > 0) log.info({ swept }, 'removed unfinished resource pack uploads left by the last run');
    this.apiPort = kernel.config.api.port;
    this.unsubscribe = kernel.bus.subscribe((event) => {
      if (event.type === 'API_STARTED') this.apiPort = Number(event.data.port);
    });
    this.store = new PackStore(kernel.db);
    this.service = new PackService({
      store: this.store,
      bus: kernel.bus,
      log,
      dir: this.dir,
      maxUploadBytes: () => this.maxUploadBytes,
      baseUrl: () => this.baseUrl(),
    });
  }

  baseUrl(): string {
    return publicBaseUrl(this.kernel.config.resourcepacks.public_base_url, this.kernel.config.api.bind, this.apiPort);
  }

  stop(): void {
    this.unsubscribe();
  }
}

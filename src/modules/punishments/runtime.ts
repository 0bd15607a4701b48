import { join } from 'node:path';
import type { PunishmentsKernel } from './uses';
import type { Logger } from '../../log';
import { MessageBook } from './messages';
import { NameResolver } from './names';
import { PunishmentService } from './service';
import { PunishmentStore } from './store';

/** The expiry loop never runs more often than this, whatever the config says. */
export const MIN_EXPIRY_INTERVAL_S = 5;

/**
 * One controller's punishments module: the table, the records in force in memory, the
 * message templates, the name resolver and the expiry loop. Settings come from svc.toml's
 * `[punishments]` section (the spec lists it among the sections a change of needs a restart).
 */
export class PunishmentsRuntime {
  readonly store: PunishmentStore;
  readonly messages: MessageBook;
  readonly names: NameResolver;
  readonly service: PunishmentService;
  readonly checkCacheTtlSeconds: number;
  readonly expiryIntervalSeconds: number;
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly kernel: PunishmentsKernel,
    private readonly log: Logger,
    dir: string,
    now: () => number = Date.now,
  ) {
    const settings = kernel.config.punishments;
    this.checkCacheTtlSeconds = settings.check_cache_ttl;
    this.expiryIntervalSeconds = Math.max(MIN_EXPIRY_INTERVAL_S, settings.expiry_check_interval);
    this.store = new PunishmentStore(kernel.db);
    this.messages = new MessageBook(join(dir, 'messages.toml'));
    const problem = this.messages.fileProblem();
    if (problem) log.warn({ file: this.messages.path, problem }, 'punishment messages file cannot be used as it is; the defaults stand in for what it lacks');
    this.names = new NameResolver({ lookupUrl: settings.name_lookup_url.trim(), players: () => kernel.modules.lookup('players'), now });
    this.service = new PunishmentService({
      store: this.store,
      bus: kernel.bus,
      names: this.names,
      templates: () => this.messages.templates(),
      // The proxies know players by name: the one they are online under, when the players module knows it.
      kick: (player, message) => void kernel.network.kick(kernel.modules.lookup('players')?.knownByUuid(player.uuid)?.name ?? player.name, message),
      checkCacheTtlMs: settings.check_cache_ttl * 1000,
      now,
    });
  }

  /** Ends what expired while no controller ran, then every `expiry_check_interval` seconds. */
  start(): void {
    this.sweep();
    this.timer = setInterval(() => this.sweep(), this.expiryIntervalSeconds * 1000);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  sweep(): number {
    try {
      const ended = this.service.expireDue();
      if (ended > 0) this.log.info({ ended }, 'punishments expired');
      return ended;
    } catch (error) {
      this.log.error({ err: error }, 'punishment expiry sweep failed');
      return 0;
    }
  }
}

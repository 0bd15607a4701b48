import { normalizeUuid } from '../../core/players/uuid';
import type { PermsKernel } from './uses';
import type { Logger } from '../../log';
import type { PermissionResolver } from '../services';
import { BulkService } from './bulk-service';
import { Changes } from './changes';
import { ExpirySweeper } from './expiry';
import { GroupService } from './groups-service';
import { PlayerService } from './players-service';
import { PermState } from './state';
import { PermStore } from './store';
import { TrackService } from './tracks-service';

/**
 * One controller's permissions module: its tables, the model held from them, and the services
 * routes and commands call. Everything that writes goes through `changes`.
 */
export class PermsRuntime {
  readonly store: PermStore;
  readonly state: PermState;
  readonly changes: Changes;
  readonly groups: GroupService;
  readonly players: PlayerService;
  readonly tracks: TrackService;
  readonly bulk: BulkService;
  private readonly sweeper: ExpirySweeper;

  constructor(kernel: PermsKernel, log: Logger, now: () => number = Date.now) {
    this.store = new PermStore(kernel.db);
    this.state = new PermState(this.store);
    this.changes = new Changes(this.store, this.state, kernel, now);
    this.groups = new GroupService(this.changes);
    this.players = new PlayerService(this.changes);
    this.tracks = new TrackService(this.changes, this.players);
    this.bulk = new BulkService(this.changes);
    this.sweeper = new ExpirySweeper(this.changes, log);
    this.state.load();
    if (this.groups.bootstrap()) log.info('created the permission groups Default and Admin (*)');
  }

  /** Starts the expiry sweep (what expired while the controller was down goes first). */
  start(): void {
    this.changes.onApplied = () => this.sweeper.rearm();
    this.sweeper.start();
  }

  stop(): void {
    this.changes.onApplied = undefined;
    this.sweeper.stop();
  }

  /** What other modules may ask, by the typed service `perms`. */
  resolver(): PermissionResolver {
    const uuidOf = (raw: string) => normalizeUuid(raw) ?? raw.toLowerCase();
    return {
      effectivePermissions: (uuid, where = {}) => this.players.effective(uuidOf(uuid), where),
      has: (uuid, node, where = {}) => this.players.check(uuidOf(uuid), node, where),
      onChange: (listener) => this.changes.onChange(listener),
    };
  }
}

import { ApiError } from '../../errors';
import { quarantineRefusal, Quarantines } from './quarantine';
import { SerialQueue } from './serial';

/**
 * Whether a start may go ahead: never once the controller shuts down, never for a group (or
 * dedicated service) quarantined for a crash loop until an operator lifts the quarantine
 * (every start asks here: an operator's, a crash restart, the minInstances refill, scaling,
 * the warm pool, a migration's second half, on this machine or an agent). Also the per-name
 * locks under which a start makes the choices that must not race (limit, name, port).
 */
export class StartGate {
  private readonly locks = new Map<string, SerialQueue>();
  private shutDown = false;

  constructor(readonly quarantines: Quarantines = new Quarantines(null)) {}

  get closed(): boolean {
    return this.shutDown;
  }

  /** The controller is shutting down: every start from now on is refused. */
  close(): void {
    this.shutDown = true;
  }

  lockOf(name: string): SerialQueue {
    const lock = this.locks.get(name) ?? new SerialQueue();
    this.locks.set(name, lock);
    return lock;
  }

  isQuarantined(name: string): boolean {
    return this.quarantines.has(name);
  }

  refuseWhenQuarantined(name: string): void {
    const quarantine = this.quarantines.get(name);
    if (quarantine) throw new ApiError('GROUP_QUARANTINED', quarantineRefusal(quarantine));
  }

  refuseWhenClosedOrQuarantined(name: string): void {
    if (this.shutDown) throw new ApiError('SERVICE_START_FAILED', 'the controller is shutting down');
    this.refuseWhenQuarantined(name);
  }
}

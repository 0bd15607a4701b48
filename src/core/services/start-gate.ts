import { ApiError } from '../../errors';
import { SerialQueue } from './serial';

/**
 * Whether a start may go ahead: never once the controller shuts down, never for a group (or
 * dedicated service) quarantined for a crash loop until an operator starts it by hand. Also
 * the per-name locks under which a start makes the choices that must not race (limit, name,
 * port).
 */
export class StartGate {
  private readonly locks = new Map<string, SerialQueue>();
  private readonly quarantined = new Map<string, string>();
  private shutDown = false;

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
    return this.quarantined.has(name);
  }

  quarantine(name: string, reason: string): void {
    this.quarantined.set(name, reason);
  }

  release(name: string): void {
    this.quarantined.delete(name);
  }

  refuseWhenClosedOrQuarantined(name: string): void {
    if (this.shutDown) throw new ApiError('SERVICE_START_FAILED', 'the controller is shutting down');
    const quarantine = this.quarantined.get(name);
    if (quarantine) throw new ApiError('SERVICE_START_FAILED', `${name} is quarantined (${quarantine}); start it by hand to clear`);
  }
}

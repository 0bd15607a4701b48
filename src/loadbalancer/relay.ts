import { Outbox, type Pipe } from './outbox';

/**
 * One client connection through the load balancer: the client's socket, the backend's once
 * it is connected, and the two directions between them.
 *
 *   client ──toBackend──▶ backend        bytes the client sent before the backend was up
 *   client ◀──toClient─── backend        wait (bounded) in toBackend and go first, in order
 *
 * Either side's FIN is passed on once what it sent is written (half-close); either side's
 * close closes the other once what it sent is written. The relay is over when both sockets
 * are gone (or the client is gone and no backend was ever connected); `onFinished` then runs
 * exactly once.
 */
export class Relay {
  /** Milliseconds (the balancer's clock) of the last byte read or written either way. */
  lastActivity: number;
  /** host:port of the backend this relay counts against, while it does. */
  assigned: string | null = null;
  finished = false;
  private backend: Pipe | null = null;
  private clientGone = false;
  private backendGone = false;
  private readonly toBackend: Outbox;
  /** Exists once the backend is connected (the backend is its source). */
  private toClientBox: Outbox | null = null;

  constructor(
    readonly client: Pipe,
    private readonly highWater: number,
    private readonly now: () => number,
    private readonly onFinished: (relay: Relay) => void,
  ) {
    this.lastActivity = now();
    this.toBackend = new Outbox(client, highWater, () => this.afterHalfClose());
  }

  /** Bytes waiting in either direction. */
  get backlog(): number {
    return this.toBackend.backlog + (this.toClientBox?.backlog ?? 0);
  }

  get clientClosed(): boolean {
    return this.clientGone;
  }

  /** The backend connected: `header` (PROXY protocol) goes first, then what the client sent meanwhile. */
  backendOpened(backend: Pipe, header?: Uint8Array): void {
    this.backend = backend;
    this.toClientBox = new Outbox(backend, this.highWater, () => this.afterHalfClose());
    this.lastActivity = this.now();
    this.toBackend.attach(backend, header);
    this.toClientBox.attach(this.client);
  }

  fromClient(chunk: Uint8Array): void {
    this.lastActivity = this.now();
    // The backend closed and the client keeps talking to no one: cut it off.
    if (this.backendGone) return this.client.terminate();
    this.toBackend.push(chunk);
  }

  fromBackend(chunk: Uint8Array): void {
    this.lastActivity = this.now();
    if (this.clientGone) return this.backend?.terminate();
    this.toClientBox?.push(chunk);
  }

  clientDrained(): void {
    this.lastActivity = this.now();
    this.toClientBox?.flush();
  }

  backendDrained(): void {
    this.lastActivity = this.now();
    this.toBackend.flush();
  }

  /** The client sent FIN. */
  clientEnded(): void {
    this.toBackend.finish('shutdown');
  }

  /** The backend sent FIN. */
  backendEnded(): void {
    this.toClientBox?.finish('shutdown');
  }

  /** The client's socket closed. */
  clientClosedNow(): void {
    if (this.clientGone) return;
    this.clientGone = true;
    this.toClientBox?.detach();
    // What the client sent still goes out first; a backend already half-closed is closed now.
    if (this.backend && !this.backendGone) {
      if (this.toBackend.done) this.backend.end();
      else this.toBackend.finish('end');
    }
    this.finishIfOver();
  }

  /** The backend's socket closed (after it had opened). */
  backendClosedNow(): void {
    if (this.backendGone) return;
    this.backendGone = true;
    this.toBackend.detach();
    if (!this.clientGone) {
      if (this.toClientBox?.done) this.client.end();
      else this.toClientBox?.finish('end');
    }
    this.finishIfOver();
  }

  /** Closes both sockets at once (idle timeout, no backend, the balancer stopping). */
  abort(): void {
    const backend = this.backend;
    this.clientGone = true;
    this.backendGone = true;
    this.toBackend.detach();
    this.toClientBox?.detach();
    this.client.terminate();
    backend?.terminate();
    this.finishIfOver();
  }

  /** Both directions half-closed: nothing more can flow, so close both sockets. */
  private afterHalfClose(): void {
    if (!this.toBackend.done || !this.toClientBox?.done) return;
    this.client.end();
    this.backend?.end();
  }

  private finishIfOver(): void {
    if (this.finished) return;
    if (!this.clientGone) return;
    if (this.backend && !this.backendGone) return;
    this.finished = true;
    this.onFinished(this);
  }
}

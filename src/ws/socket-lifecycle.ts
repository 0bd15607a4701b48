import type { Authenticator, Principal } from '../core/auth';
import type { SocketSpec } from '../http/route';
import type { Heartbeat } from './heartbeat';
import { admitSocket, EarlyFrames, forgetSocket, socketId, type SocketHandle } from './socket-auth';
import type { SocketEndpoint } from './socket-hub';

/** What one API socket does with a connection once it is let in; the lifecycle does the rest. `S`, a kept socket's state, is never undefined. */
export interface SocketBehaviour<S> {
  spec: SocketSpec;
  /**
   * The socket passed its credential check: its state from now on, or null when the endpoint
   * will not keep it (it has closed it, saying why).
   */
  admitted(ws: SocketHandle, who: Principal): S | null;
  /** A frame of a kept socket; those sent while its credential was checked come first, in order. */
  message?(state: S, message: unknown): void;
  /** A kept socket closed (whoever closed it). */
  closed?(state: S): void;
}

export interface LifecycleEndpoint<S> extends SocketEndpoint {
  /** The states of the sockets kept now. */
  connections(): IterableIterator<S>;
}

/**
 * The lifecycle every API WebSocket shares, written once:
 *
 *   open ──► checking credential ──refused──► closed 1008 (frames sent meanwhile dropped)
 *                   │ (frames held: EarlyFrames)
 *                admitted ──► heartbeat tracks it ──► behaviour.admitted ──null──► (the endpoint closed it)
 *                                                            │ state
 *                                                          kept ──► frames to behaviour.message, held ones first
 *   close (any time) ──► heartbeat untracked, session watch ended, behaviour.closed if it was kept
 *
 * Every frame and every pong counts as a sign of life for the heartbeat. A socket that closes
 * while its credential is being checked is never admitted.
 */
export function socketLifecycle<S>(auth: Pick<Authenticator, 'identifySocket' | 'authorize' | 'watchSession'>, heartbeat: Heartbeat, behaviour: SocketBehaviour<S>): LifecycleEndpoint<S> {
  const kept = new Map<string, S>();
  const early = new EarlyFrames();
  const deliver = (state: S, message: unknown): void => behaviour.message?.(state, message);
  return {
    async open(ws) {
      const id = socketId(ws);
      early.begin(id);
      const who = await admitSocket(ws, auth, behaviour.spec, () => early.pending(id));
      const sentMeanwhile = early.end(id);
      if (!who) return;
      const raw = ws.raw;
      heartbeat.track(id, { ping: () => raw.ping(), terminate: () => raw.terminate() });
      const state = behaviour.admitted(ws, who);
      if (state === null) return;
      kept.set(id, state);
      for (const message of sentMeanwhile) deliver(state, message);
    },
    message(ws, message) {
      const id = socketId(ws);
      heartbeat.alive(id);
      if (early.hold(id, message)) return;
      const state = kept.get(id);
      if (state !== undefined) deliver(state, message);
    },
    pong(ws) {
      heartbeat.alive(socketId(ws));
    },
    close(ws) {
      const id = socketId(ws);
      heartbeat.untrack(id);
      early.end(id);
      forgetSocket(ws);
      const state = kept.get(id);
      kept.delete(id);
      if (state !== undefined) behaviour.closed?.(state);
    },
    connections: () => kept.values(),
  };
}

import type { Kernel } from '../kernel';
import type { SocketHub } from './socket-hub';
import type { SocketSpec } from '../http/route';
import type { Heartbeat } from './heartbeat';
import { admitSocket, EarlyFrames, forgetSocket, socketId, type SocketHandle } from './socket-auth';

export const SERVICE_CONSOLE_SOCKET: SocketSpec = {
  path: '/api/services/:name/console',
  auth: 'admin',
  summary: 'A service console: each stdout line out as a text frame; each inbound frame, trimmed, to stdin',
  permission: 'svc.dashboard.services.console',
};

/** Close code when the service is unknown or has no process (unsupported data). */
export const CLOSE_NO_SERVICE = 1003;

/**
 * GET /api/services/{name}/console: admin tokens, and sessions holding the console node (derived
 * service tokens are refused with 1008).
 * Unknown service or no running process: 1003. No command framing: a frame is a line. Lines
 * typed before the credential was checked are written once the socket is admitted.
 */
export function mountServiceConsole(hub: SocketHub, kernel: Kernel, heartbeat: Heartbeat): void {
  const live = new Map<string, () => void>();
  const early = new EarlyFrames();
  const toStdin = (ws: SocketHandle, message: unknown) => {
    const name = (ws.data as { params: { name: string } }).params.name;
    const text = (typeof message === 'string' ? message : JSON.stringify(message)).trim();
    if (text === '' || /[\r\n]/.test(text)) return;
    kernel.manager.handleOf(name)?.write(text);
  };
  hub.add(SERVICE_CONSOLE_SOCKET.path, {
    async open(ws: SocketHandle) {
      const id = socketId(ws);
      early.begin(id);
      const data = ws.data as { params: { name: string } };
      const admitted = await admitSocket(ws, kernel.auth, SERVICE_CONSOLE_SOCKET, () => early.pending(id));
      const typedMeanwhile = early.end(id);
      if (!admitted) return;
      const name = data.params.name;
      if (!kernel.services.get(name)) {
        ws.close(CLOSE_NO_SERVICE, `service ${name} does not exist`);
        return;
      }
      const handle = kernel.manager.handleOf(name);
      if (!handle?.isAlive()) {
        ws.close(CLOSE_NO_SERVICE, `service ${name} has no running process`);
        return;
      }
      const raw = ws.raw;
      heartbeat.track(id, { ping: () => raw.ping(), terminate: () => raw.terminate() });
      const stopLines = handle.onLine((line) => raw.send(line));
      void handle.exited.then(() => ws.close(1000, `service ${name} ended`));
      live.set(id, stopLines);
      for (const message of typedMeanwhile) toStdin(ws, message);
    },
    message(ws: SocketHandle, message: unknown) {
      const id = socketId(ws);
      heartbeat.alive(id);
      if (early.hold(id, message) || !live.has(id)) return;
      toStdin(ws, message);
    },
    pong(ws: { data: unknown }) {
      heartbeat.alive(socketId(ws));
    },
    close(ws: SocketHandle) {
      const id = socketId(ws);
      heartbeat.untrack(id);
      early.end(id);
      forgetSocket(ws);
      live.get(id)?.();
      live.delete(id);
    },
  });
}

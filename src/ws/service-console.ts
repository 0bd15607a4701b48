import type { AnyElysia } from 'elysia';
import type { Kernel } from '../kernel';
import type { SocketSpec } from '../http/route';
import type { Heartbeat } from './heartbeat';
import { admitAdmin, socketId, type SocketHandle } from './socket-auth';

export const SERVICE_CONSOLE_SOCKET: SocketSpec = {
  path: '/api/services/:name/console',
  auth: 'admin',
  summary: 'A service console: each stdout line out as a text frame; each inbound frame, trimmed, to stdin',
};

/** Close code when the service is unknown or has no process (unsupported data). */
export const CLOSE_NO_SERVICE = 1003;

/**
 * GET /api/services/{name}/console, admin only (derived service tokens are refused with 1008).
 * Unknown service or no running process: 1003. No command framing: a frame is a line.
 */
export function mountServiceConsole(app: AnyElysia, kernel: Kernel, heartbeat: Heartbeat): void {
  const live = new Map<string, (() => void) | null>();
  app.ws(SERVICE_CONSOLE_SOCKET.path, {
    async open(ws: SocketHandle) {
      const id = socketId(ws);
      live.set(id, null);
      const data = ws.data as { params: { name: string } };
      if (!(await admitAdmin(ws, kernel.auth, () => live.has(id)))) return;
      const name = decodeURIComponent(data.params.name);
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
    },
    message(ws: SocketHandle, message: unknown) {
      const id = socketId(ws);
      heartbeat.alive(id);
      if (!live.get(id)) return;
      const name = decodeURIComponent((ws.data as { params: { name: string } }).params.name);
      const text = (typeof message === 'string' ? message : JSON.stringify(message)).trim();
      if (text === '' || /[\r\n]/.test(text)) return;
      kernel.manager.handleOf(name)?.write(text);
    },
    pong(ws: { data: unknown }) {
      heartbeat.alive(socketId(ws));
    },
    close(ws: SocketHandle) {
      const id = socketId(ws);
      heartbeat.untrack(id);
      live.get(id)?.();
      live.delete(id);
    },
  });
}

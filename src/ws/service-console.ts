import type { Kernel } from '../kernel';
import type { SocketHub } from './socket-hub';
import type { SocketSpec } from '../http/route';
import type { Heartbeat } from './heartbeat';
import { socketLifecycle } from './socket-lifecycle';

/** A kept console socket: its service, and how to stop hearing its lines. */
interface ConsoleOf {
  name: string;
  stopLines: () => void;
}

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
  hub.add(
    SERVICE_CONSOLE_SOCKET.path,
    socketLifecycle<ConsoleOf>(kernel.auth, heartbeat, {
      spec: SERVICE_CONSOLE_SOCKET,
      admitted(ws) {
        const name = (ws.data as { params: { name: string } }).params.name;
        if (!kernel.services.get(name)) {
          ws.close(CLOSE_NO_SERVICE, `service ${name} does not exist`);
          return null;
        }
        const handle = kernel.manager.handleOf(name);
        if (!handle?.isAlive()) {
          ws.close(CLOSE_NO_SERVICE, `service ${name} has no running process`);
          return null;
        }
        const stopLines = handle.onLine((line) => ws.raw.send(line));
        void handle.exited.then(() => ws.close(1000, `service ${name} ended`));
        return { name, stopLines };
      },
      message({ name }, message) {
        const text = (typeof message === 'string' ? message : JSON.stringify(message)).trim();
        if (text === '' || /[\r\n]/.test(text)) return;
        kernel.manager.handleOf(name)?.write(text);
      },
      closed: ({ stopLines }) => stopLines(),
    }),
  );
}

import { randomUUID } from 'node:crypto';
import type { Kernel } from '../kernel';
import type { SocketHub } from './socket-hub';
import type { SocketSpec } from '../http/route';
import { attachScreen, screenInput } from '../core/commands/screen';
import { monotonicNow } from '../core/time/monotonic';
import type { CliClient, CliSessionStore } from '../core/commands/cli-sessions';
import type { LocationLookup } from '../core/commands/location';
import type { Heartbeat } from './heartbeat';
import { publishEventsTo } from './event-topic';
import type { SocketHandle } from './socket-auth';
import { socketLifecycle } from './socket-lifecycle';
import type { Actor } from '../events/catalogue';
import { clientAddress } from '../http/request';
import { EVENTS_NOT_FORWARDED, inboundFrame, outputFrame, type InboundFrame, type OutboundFrame } from './console-protocol';

export const CONSOLE_STREAM_SOCKET: SocketSpec = {
  path: '/api/console/stream',
  auth: 'admin',
  summary: 'The remote console, multiplexed JSON: hello, execute, complete, screen_* in; output, output_end, completions, event, screen_* out',
  // It runs any controller command, so only an admin session opens it.
  permission: 'svc.dashboard.admin',
};

/** The topic events reach consoles on (serialised once, whatever the number of consoles). */
const TOPIC = 'svc-console-events';
/** Commands one session may have running at once; more is a runaway script, not a person. */
const MAX_RUNNING = 16;

interface Session {
  ws: SocketHandle;
  ip: string;
  /** Who opened it: an admin token, or an admin dashboard session (`dashboard:<name>`). */
  actor: Actor;
  /** Set by the first hello. */
  id: string | null;
  client: CliClient | null;
  /** Wall-clock ms: what the session row says. */
  connectedAt: number;
  /** Monotonic ms: what its length is measured from. */
  connectedMono: number;
  commands: number;
  running: number;
  /** The session row and CLI_SESSION_CONNECTED, once the location lookup is done. */
  registered: Promise<void> | null;
  screen: { service: string; stop: () => void } | null;
}

export interface ConsoleStreamDeps {
  kernel: Kernel;
  heartbeat: Heartbeat;
  sessions: CliSessionStore;
  locations: LocationLookup;
}

/**
 * GET /api/console/stream, admin only: the remote console (`svc cli`, the dashboard's
 * terminal). A session begins with `hello`; until then only hello is accepted. Output lines
 * of a command are sent as they are printed, then output_end. One screen per session.
 *
 * Clients send hello as soon as the socket opens, which can be before the credential has been
 * checked (an admin JWT is verified asynchronously). Frames of that moment are kept and handled,
 * in order, once the socket is admitted; they are dropped if it is refused.
 */
export function mountConsoleStream(hub: SocketHub, deps: ConsoleStreamDeps): { sessions(): number } {
  const { kernel, heartbeat } = deps;
  const send = (session: Session, frame: OutboundFrame) => session.ws.raw.send(JSON.stringify(frame));

  publishEventsTo(() => hub.publisher, kernel.bus, TOPIC, (event) =>
    EVENTS_NOT_FORWARDED.has(event.type) ? null : JSON.stringify({ type: 'event', event: { type: event.type, data: event.data } } satisfies OutboundFrame),
  );

  const hello = (session: Session, text: string) => {
    if (session.id !== null) return; // one session per connection; later hellos change nothing
    session.id = randomUUID();
    session.client = clientOf(text);
    session.ws.raw.subscribe(TOPIC);
    const { id, client, ip } = session;
    session.registered = deps.locations.locate(ip).then((location) => {
      deps.sessions.open({ id, remoteIp: ip, client, location, at: session.connectedAt });
      kernel.bus.publish('CLI_SESSION_CONNECTED', { sessionId: id, remoteIp: ip, clientUsername: client.username, clientHostname: client.hostname, clientOs: client.os, location }, session.actor);
      kernel.log.info({ area: 'console', session: id, ip, user: client.username }, 'remote console connected');
    });
  };

  const execute = async (session: Session, id: string, input: string) => {
    const end = (success: boolean) => send(session, { type: 'output_end', id, success });
    const fail = (text: string) => {
      send(session, outputFrame(id, { kind: 'error', text }));
      end(false);
    };
    const line = kernel.commands.resolveLine(input);
    if ('empty' in line) return end(true);
    if ('error' in line) return fail(line.error);
    if (session.running >= MAX_RUNNING) return fail(`${MAX_RUNNING} commands are still running in this session; wait for one to finish`);
    session.commands += 1;
    session.running += 1;
    try {
      const result = await kernel.commands.run(line.command, { args: line.args, actor: session.actor, caller: `console-stream:${session.id}` }, (printed) => send(session, outputFrame(id, printed)));
      end(result.success);
    } finally {
      session.running -= 1;
    }
  };

  const attach = (session: Session, service: string) => {
    detach(session);
    let attached = false;
    const backlog: string[] = [];
    const result = attachScreen(kernel, service, {
      // The backlog arrives before the answer is known; it follows screen_attached.
      line: (text) => (attached ? send(session, { type: 'screen_line', text }) : backlog.push(text)),
      ended: (reason) => {
        session.screen = null;
        send(session, { type: 'screen_detached', text: reason });
      },
    });
    if (typeof result === 'string') return send(session, { type: 'screen_error', text: result });
    send(session, { type: 'screen_attached', text: service });
    for (const text of backlog) send(session, { type: 'screen_line', text });
    attached = true;
    session.screen = { service, stop: result.stop };
  };

  const detach = (session: Session) => {
    session.screen?.stop();
    session.screen = null;
  };

  const input = (session: Session, service: string, text: string) => {
    if (session.screen?.service !== service) return send(session, { type: 'screen_error', text: `not attached to ${service}; send screen_attach first` });
    const problem = screenInput(kernel, service, text);
    if (problem) send(session, { type: 'screen_error', text: problem });
  };

  const handle = (session: Session, frame: InboundFrame) => {
    if (frame.type === 'hello') return hello(session, frame.text);
    if (session.id === null) {
      const text = 'send hello first: the session starts with {"type":"hello","text":"{\\"username\\":…}"}';
      if (frame.type === 'execute' || frame.type === 'complete') {
        send(session, outputFrame(frame.id, { kind: 'error', text }));
        return send(session, { type: 'output_end', id: frame.id, success: false });
      }
      return send(session, { type: 'screen_error', text });
    }
    switch (frame.type) {
      case 'execute':
        return void execute(session, frame.id, frame.input);
      case 'complete':
        return send(session, { type: 'completions', id: frame.id, candidates: kernel.commands.complete(frame.input, frame.input.length) });
      case 'screen_attach':
        return attach(session, frame.service);
      case 'screen_input':
        return input(session, frame.service, frame.text);
      case 'screen_detach':
        detach(session);
        return send(session, { type: 'screen_detached' });
    }
  };

  const receive = (session: Session, message: unknown) => {
    const frame = parseFrame(message);
    if (frame === null) {
      kernel.log.debug({ area: 'console' }, 'ignored a console frame that is not one of the protocol');
      return;
    }
    handle(session, frame);
  };

  const endpoint = socketLifecycle<Session>(kernel.auth, heartbeat, {
    spec: CONSOLE_STREAM_SOCKET,
    admitted: (ws, who) => ({ ws, ip: addressOf(ws, kernel.config.api.trust_forwarded_for), actor: who.actor, id: null, client: null, connectedAt: Date.now(), connectedMono: monotonicNow(), commands: 0, running: 0, registered: null, screen: null }),
    message: receive,
    closed(session) {
      detach(session);
      const ended = Date.now();
      const lengthMs = monotonicNow() - session.connectedMono;
      void session.registered?.then(() => {
        const durationSeconds = deps.sessions.close(session.id!, ended, session.commands, lengthMs);
        kernel.bus.publish('CLI_SESSION_DISCONNECTED', { sessionId: session.id!, remoteIp: session.ip, clientUsername: session.client!.username, durationSeconds, commandCount: session.commands }, session.actor);
      }).catch((error: unknown) => kernel.log.error({ area: 'console', err: error }, 'recording the console session failed'));
    },
  });
  hub.add(CONSOLE_STREAM_SOCKET.path, endpoint);
  return { sessions: () => [...endpoint.connections()].filter((s) => s.id).length };
}

function parseFrame(message: unknown): InboundFrame | null {
  let value = message;
  if (typeof message === 'string') {
    try {
      value = JSON.parse(message);
    } catch {
      return null;
    }
  }
  return inboundFrame.Check(value) ? value : null;
}

/** Hello text is the client's own JSON; anything missing or odd becomes "unknown". */
function clientOf(text: string): CliClient {
  let parsed: Record<string, unknown> = {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object') parsed = value as Record<string, unknown>;
  } catch {
    // a hello without JSON still opens a session; the client is just unnamed
  }
  const field = (key: string) => {
    const raw = parsed[key];
    // eslint-disable-next-line no-control-regex
    const clean = typeof raw === 'string' ? raw.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 128) : '';
    return clean === '' ? 'unknown' : clean;
  };
  return { username: field('username'), hostname: field('hostname'), os: field('os') };
}

function addressOf(ws: SocketHandle, trustForwardedFor: boolean): string {
  const data = ws.data as { headers: Record<string, string | undefined> };
  return clientAddress(data.headers['x-forwarded-for'], (ws.raw as { remoteAddress?: string }).remoteAddress, trustForwardedFor);
}

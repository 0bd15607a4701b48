import { VERSION } from '../version';
import type { ServerWebSocket } from 'bun';
import type { Logger } from '../log';
import { AgentLogThrottle, cleanAgentText } from './agent-log';
import { admitLogin } from './identity/admit';
import { LoginFailures } from './identity/login-failures';
import type { Cluster } from './cluster';
import type { ClusterCertificate } from './certificate';
import { parseAgentMessage, PROTOCOL_VERSION, type AgentMessage, type ControllerMessage } from './protocol';
import type { AgentLink } from './remote-handle';
import { isAgentDataPath, serveDataPath } from './data-path';
import { SERVER_BODY_CEILING, type ApiHandler } from '../http/api-handler';

/** A frame larger than this is refused (a heartbeat of hundreds of services fits easily). */
export const CLUSTER_MAX_FRAME = 1024 * 1024;
/** Bytes queued towards one agent beyond which it counts as stalled and is disconnected. */
export const CLUSTER_MAX_QUEUE = 8 * 1024 * 1024;
const AUTH_TIMEOUT_MS = 10_000;

interface Session {
  id: number;
  nodeId: string | null;
  link: AgentLink | null;
  authTimer: ReturnType<typeof setTimeout> | null;
}

export interface ClusterServerOptions {
  /** Where agents of another version get this controller's release (`[controller] update_check_url` and key). */
  release?: () => { feedUrl: string; publicKey: string };
  bind: string;
  port: number;
  /** TLS identity; null serves ws:// (`tls_enabled = false`). */
  certificate: ClusterCertificate | null;
  token: string;
  cluster: Cluster;
  log: Logger;
  /** Failed logins per remote address (tests pass their own clock or limit). */
  loginFailures?: LoginFailures;
  /** The API's dispatch for the agents' data routes (data-path.ts); bound once the API listens. */
  api?: () => ApiHandler | undefined;
}

/**
 * The agent channel, `/cluster` on its own port. The first frame must be AUTH_REQUEST; the
 * protocol version is checked before the token, and a refusal is answered with an
 * AUTH_RESPONSE that says why, then the close. Anything invalid later costs the agent its
 * connection: the controller never trusts a frame it could not validate.
 */
export function startClusterServer(options: ClusterServerOptions): { port: number; stop(): void } {
  const { cluster, log } = options;
  const failures = options.loginFailures ?? new LoginFailures();
  const agentLogs = new AgentLogThrottle();
  let nextId = 1;
  const server = Bun.serve<Session>({
    hostname: options.bind,
    port: options.port,
    reusePort: false,
    tls: options.certificate ? { cert: options.certificate.certPem, key: options.certificate.keyPem } : undefined,
    // State pushes arrive here too (data-path.ts): the API's own ceiling, each route's limit below it.
    maxRequestBodySize: SERVER_BODY_CEILING,
    fetch(request, srv) {
      const url = new URL(request.url);
      if (isAgentDataPath(url.pathname)) return serveDataPath(request, srv.requestIP(request)?.address, options.api?.());
      if (url.pathname !== '/cluster') return Response.json({ success: false, message: 'the cluster server only serves /cluster', error: 'NOT_FOUND' }, { status: 404 });
      const session: Session = { id: nextId++, nodeId: null, link: null, authTimer: null };
      if (srv.upgrade(request, { data: session })) return undefined;
      return Response.json({ success: false, message: 'a WebSocket upgrade is required', error: 'VALIDATION_FAILED' }, { status: 400 });
    },
    websocket: {
      maxPayloadLength: CLUSTER_MAX_FRAME,
      idleTimeout: 0,
      open(ws) {
        // An address with too many failed logins is turned away before it may present anything.
        const wait = failures.blockedFor(ws.remoteAddress);
        if (wait > 0) {
          ws.close(1008, `too many failed cluster logins from this address: try again in ${Math.ceil(wait / 1000)} s`);
          return;
        }
        ws.data.authTimer = setTimeout(() => ws.close(1008, 'no AUTH_REQUEST within 10 s'), AUTH_TIMEOUT_MS);
      },
      message(ws, raw) {
        const parsed = parseAgentMessage(typeof raw === 'string' ? raw : Buffer.from(raw));
        if (!parsed.ok) {
          log.warn({ nodeId: ws.data.nodeId, remote: ws.remoteAddress }, `agent frame refused: ${parsed.reason}`);
          ws.close(1008, truncate(parsed.reason));
          return;
        }
        if (ws.data.nodeId === null) return authenticate(ws, parsed.message);
        dispatch(ws.data.nodeId, parsed.message, ws);
      },
      close(ws, code, reason) {
        if (ws.data.authTimer) clearTimeout(ws.data.authTimer);
        if (ws.data.nodeId && ws.data.link) {
          cluster.disconnected(ws.data.nodeId, ws.data.link, reason || `closed (${code})`);
          agentLogs.forget(ws.data.nodeId);
        }
      },
      drain() {},
    },
  });

  /**
   * The first frame: the protocol version, then the credential and the login rules
   * (identity/login.ts): a node's own secret logs it in, the cluster token enrols an id that
   * has none yet (the answer carries its new secret), a live session is never replaced.
   * Failed credentials count against the remote address.
   */
  function authenticate(ws: ServerWebSocket<Session>, message: AgentMessage): void {
    const remote = ws.remoteAddress;
    const refuse = (reason: string, refusal?: string, nodeId?: string) => {
      log.warn({ remote, ...(nodeId ? { nodeId } : {}), ...(refusal ? { refusal } : {}) }, `agent refused: ${reason}`);
      send(ws, { type: 'AUTH_RESPONSE', accepted: false, nodeId: '', reason, protocolVersion: PROTOCOL_VERSION, heartbeatInterval: cluster.heartbeatIntervalMs, ...(refusal ? { refusal } : {}) });
      ws.close(1008, truncate(reason));
    };
    if (message.type !== 'AUTH_REQUEST') return refuse(`the first frame must be AUTH_REQUEST, got ${message.type}`);
    if (message.protocolVersion !== PROTOCOL_VERSION) {
      return refuse(`protocol version ${message.protocolVersion} is not supported; this controller speaks version ${PROTOCOL_VERSION}: update the agent or the controller`);
    }
    // Checked again here: sockets opened together before the limit was reached get no more tries than one.
    const wait = failures.blockedFor(remote);
    if (wait > 0) return refuse(`too many failed cluster logins from this address: try again in ${Math.ceil(wait / 1000)} s`, 'rate-limited');
    const nodeId = message.nodeName;
    const admitted = admitLogin(cluster.identities, options.token, { token: message.token, nodeId, host: message.publicHost || remote, live: cluster.isConnected(nodeId) }, (text) => log.warn({ nodeId }, text));
    if (admitted.verdict === 'refuse') {
      if (admitted.failure) failures.fail(remote);
      return refuse(admitted.reason, admitted.refusal, nodeId);
    }
    if (ws.data.authTimer) clearTimeout(ws.data.authTimer);
    ws.data.authTimer = null;
    const link: AgentLink = { send: (frame) => send(ws, frame) };
    ws.data.nodeId = nodeId;
    ws.data.link = link;
    const release = options.release?.();
    send(ws, {
      type: 'AUTH_RESPONSE',
      accepted: true,
      nodeId,
      reason: '',
      protocolVersion: PROTOCOL_VERSION,
      heartbeatInterval: cluster.heartbeatIntervalMs,
      controllerVersion: VERSION,
      ...(release?.feedUrl ? { release } : {}),
      ...(admitted.nodeSecret ? { nodeSecret: admitted.nodeSecret } : {}),
    });
    cluster.connected(message, remote, link, (code, reason) => ws.close(code, reason), admitted.nodeSecret ? { reenrolled: admitted.reenrolled === true } : undefined);
  }

  /** An agent's own log line: cleaned (no escapes, no control characters, capped) and throttled per node before it reaches this log. */
  function agentLog(nodeId: string, level: 'info' | 'warn' | 'error', text: string): void {
    const { allowed, dropped } = agentLogs.take(nodeId);
    if (!allowed) return;
    if (dropped > 0) log.warn({ nodeId }, `agent: ${dropped} log message(s) of this node dropped (more than the rate limit)`);
    log[level]({ nodeId }, `agent: ${cleanAgentText(text)}`);
  }

  function dispatch(nodeId: string, message: AgentMessage, ws: ServerWebSocket<Session>): void {
    switch (message.type) {
      case 'AUTH_REQUEST':
        ws.close(1008, 'already authenticated');
        return;
      case 'HEARTBEAT_RESPONSE':
        return cluster.heartbeat(nodeId, message);
      case 'SERVICE_STATE_CHANGED':
        return cluster.stateChanged(nodeId, message);
      case 'SERVICE_STDOUT':
        return cluster.stdout(nodeId, message.serviceName, message.lines);
      case 'LOG_MESSAGE':
        return agentLog(nodeId, message.level, message.message);
      case 'COMMAND_RESULT':
        return;
    }
  }

  /** Queues a frame; an agent that lets its queue grow past the limit is stalled and dropped. */
  function send(ws: ServerWebSocket<Session>, frame: ControllerMessage): void {
    if (ws.readyState !== 1) return;
    ws.send(JSON.stringify(frame));
    if (ws.getBufferedAmount() > CLUSTER_MAX_QUEUE) {
      log.warn({ nodeId: ws.data.nodeId }, `more than ${CLUSTER_MAX_QUEUE} bytes queued for the agent: it is stalled, disconnecting it`);
      ws.close(1008, 'send queue overflow: the agent stopped reading');
    }
  }

  return {
    port: server.port ?? options.port,
    stop: () => void server.stop(true),
  };
}

/** Close reasons are limited to 123 bytes by the protocol. */
function truncate(reason: string): string {
  return Buffer.byteLength(reason) <= 123 ? reason : `${Buffer.from(reason).subarray(0, 120).toString('utf8')}...`;
}

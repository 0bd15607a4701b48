/**
 * A hand-driven agent for attack tests: a real WebSocket client of a controller's /cluster
 * channel (TLS, trusting only the given certificate) that logs in with whatever the test says
 * and records every frame it gets, so a test can act as a rogue node: a token holder claiming
 * another node's id, an agent answering a START_SERVICE for the wrong service, a node sending
 * forged log text.
 */
import { waitFor } from './controller';

export interface FakeAgentLogin {
  token: string;
  nodeName: string;
  publicHost?: string;
  runningServices?: unknown[];
  /** Extra fields laid over the AUTH_REQUEST (new optional fields, or a wrong protocol version). */
  extra?: Record<string, unknown>;
}

export type Frame = { type: string } & Record<string, unknown>;

export class FakeAgent {
  readonly frames: Frame[] = [];
  closed: { code: number; reason: string } | null = null;
  private readonly socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(wsUrl: string, certPem: string | null, login: FakeAgentLogin) {
    const options = certPem ? ({ tls: { ca: certPem } } as unknown as ConstructorParameters<typeof WebSocket>[1]) : undefined;
    this.socket = new WebSocket(wsUrl, options);
    this.socket.addEventListener('message', (event) => {
      try {
        this.frames.push(JSON.parse(String(event.data)) as Frame);
      } catch {
        this.frames.push({ type: '(not JSON)', raw: String(event.data) });
      }
    });
    this.socket.addEventListener('close', (event) => (this.closed = { code: event.code, reason: event.reason }));
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener('open', () => resolve());
      this.socket.addEventListener('error', () => reject(new Error(`cannot connect to ${wsUrl}`)));
    });
    this.opened.catch(() => undefined);
    void this.opened.then(() =>
      this.send({
        type: 'AUTH_REQUEST',
        protocolVersion: 1,
        token: login.token,
        nodeName: login.nodeName,
        agentVersion: '0.0.0-fake',
        maxMemory: 4096,
        maxServices: 10,
        currentServices: 0,
        os: 'linux',
        arch: 'x64',
        hostname: 'fake-agent',
        osVersion: '6',
        cpuModel: 'fake',
        availableProcessors: 2,
        systemMemoryTotalMb: 8192,
        publicHost: login.publicHost ?? '127.0.0.1',
        runningServices: login.runningServices ?? [],
        ...login.extra,
      }),
    );
  }

  send(frame: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** The first frame of this type (matching `match`), waiting for it. */
  frame(type: string, match: (frame: Frame) => boolean = () => true, timeoutMs = 10_000): Promise<Frame> {
    return waitFor(() => this.frames.find((f) => f.type === type && match(f)), { what: `a ${type} frame`, timeoutMs });
  }

  /** The AUTH_RESPONSE: accepted or not, and why. */
  authResponse(timeoutMs = 10_000): Promise<Frame> {
    return this.frame('AUTH_RESPONSE', () => true, timeoutMs);
  }

  /** Waits for the server to close the socket. */
  async closedWith(timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
    return waitFor(() => this.closed, { what: 'the cluster socket to close', timeoutMs });
  }

  close(): void {
    this.socket.close(1000, 'fake agent done');
  }
}

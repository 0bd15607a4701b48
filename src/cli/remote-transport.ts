import type { OutputLine } from '../core/commands/command';
import type { CliClient } from '../core/commands/cli-sessions';
import type { CommandResult } from '../core/commands/registry';
import type { InboundFrame, OutboundFrame } from '../ws/console-protocol';
import type { ConsoleEvent, ConsoleTransport, ScreenListener } from './transport';

/** The spec's client backoff: 1 s, doubling, at most 30 s. */
export const RECONNECT_FIRST_MS = 1000;
export const RECONNECT_MAX_MS = 30_000;
const CONNECT_TIMEOUT_MS = 10_000;
const REPLY_TIMEOUT_MS = 10_000;
/** Close code the controller uses for a refused token. */
const CLOSE_POLICY = 1008;

export interface RemoteOptions {
  /** The controller's API base, e.g. http://host:8080. */
  url: string;
  token: string;
  client: CliClient;
  /** Reconnect with backoff when the connection drops (interactive use); off for `-c`. */
  reconnect: boolean;
  /** The connection can never work again (the token was refused). */
  onFatal?: (message: string) => void;
}

/** A connection problem worth its own exit status. */
export class ConnectionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectionError';
  }
}

interface PendingCommand {
  onLine: (line: OutputLine) => void;
  resolve: (result: CommandResult) => void;
}

/** `svc cli`'s side of /api/console/stream. */
export class RemoteConsole implements ConsoleTransport {
  private ws: WebSocket | null = null;
  private nextId = 1;
  private readonly commands = new Map<string, PendingCommand>();
  private readonly completions = new Map<string, (candidates: string[]) => void>();
  private attaching: { service: string; resolve: () => void; reject: (error: Error) => void } | null = null;
  private screen: { service: string; listener: ScreenListener } | null = null;
  private readonly events = new Set<(event: ConsoleEvent) => void>();
  private readonly notices = new Set<(text: string) => void>();
  private closing = false;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly options: RemoteOptions) {}

  /** Opens the socket and says hello; rejects with a ConnectionError a person can act on. */
  connect(): Promise<void> {
    const endpoint = socketUrl(this.options.url);
    return new Promise((resolve, reject) => {
      const ws = new WebSocket(endpoint, { headers: { authorization: `Bearer ${this.options.token}` } });
      let opened = false;
      let upgradeStatus: string | undefined;
      // The controller checks the token after the upgrade and closes with 1008 when it is
      // refused; a first reply to a harmless request is the sign the session is really up.
      const timer = setTimeout(() => {
        ws.close();
        reject(new ConnectionError(`no answer from ${this.options.url} within ${CONNECT_TIMEOUT_MS / 1000} s`));
      }, CONNECT_TIMEOUT_MS);
      const probe = `probe-${this.nextId++}`;
      ws.addEventListener('open', () => {
        this.send({ type: 'hello', text: JSON.stringify(this.options.client) }, ws);
        this.send({ type: 'complete', id: probe, input: '' }, ws);
      });
      ws.addEventListener('message', (message) => {
        const frame = parse(message.data);
        if (!frame) return;
        if (!opened && frame.type === 'completions' && frame.id === probe) {
          opened = true;
          clearTimeout(timer);
          this.ws = ws;
          resolve();
          return;
        }
        if (opened) this.receive(frame);
      });
      ws.addEventListener('close', (event) => {
        clearTimeout(timer);
        if (!opened) {
          reject(new ConnectionError(refusal(this.options.url, event.code, event.reason, upgradeStatus)));
          return;
        }
        this.onClosed(event.code, event.reason);
      });
      ws.addEventListener('error', (event) => {
        // The close event follows with 1006 either way; the error's text tells a refused
        // upgrade (an HTTP status) from a host that does not answer.
        upgradeStatus = /Expected 101 status code: (\d{3})/.exec((event as ErrorEvent).message ?? '')?.[1];
      });
    });
  }

  execute(input: string, onLine: (line: OutputLine) => void): Promise<CommandResult> {
    const id = String(this.nextId++);
    return new Promise((resolve) => {
      if (!this.ws) return resolve(this.notConnected(onLine));
      this.commands.set(id, { onLine, resolve });
      this.send({ type: 'execute', id, input });
    });
  }

  complete(buffer: string, cursor: number): Promise<string[]> {
    const id = String(this.nextId++);
    return new Promise((resolve) => {
      if (!this.ws) return resolve([]);
      const timer = setTimeout(() => {
        this.completions.delete(id);
        resolve([]);
      }, REPLY_TIMEOUT_MS);
      this.completions.set(id, (candidates) => {
        clearTimeout(timer);
        resolve(candidates);
      });
      // The protocol completes the whole input; the cursor decides where that input ends.
      this.send({ type: 'complete', id, input: buffer.slice(0, cursor) });
    });
  }

  attach(service: string, listener: ScreenListener): Promise<void> {
    if (!this.ws) return Promise.reject(new Error('not connected to the controller'));
    this.screen = null;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.attaching = null;
        reject(new Error(`the controller did not answer the attach to ${service}`));
      }, REPLY_TIMEOUT_MS);
      this.attaching = {
        service,
        resolve: () => {
          clearTimeout(timer);
          this.screen = { service, listener };
          resolve();
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      this.send({ type: 'screen_attach', service });
    });
  }

  screenInput(text: string): void {
    if (this.screen) this.send({ type: 'screen_input', service: this.screen.service, text });
  }

  detach(): void {
    if (!this.screen) return;
    this.screen = null;
    this.send({ type: 'screen_detach' });
  }

  onEvent(listener: (event: ConsoleEvent) => void): () => void {
    this.events.add(listener);
    return () => this.events.delete(listener);
  }

  onNotice(listener: (text: string) => void): () => void {
    this.notices.add(listener);
    return () => this.notices.delete(listener);
  }

  close(): void {
    this.closing = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.ws?.close(1000, 'bye');
    this.ws = null;
  }

  private receive(frame: OutboundFrame): void {
    switch (frame.type) {
      case 'output':
        return this.commands.get(frame.id)?.onLine({ kind: frame.line.type, text: frame.line.text });
      case 'output_end': {
        const pending = this.commands.get(frame.id);
        this.commands.delete(frame.id);
        return pending?.resolve({ success: frame.success !== false });
      }
      case 'completions': {
        const done = this.completions.get(frame.id);
        this.completions.delete(frame.id);
        return done?.(frame.candidates);
      }
      case 'event':
        for (const listener of this.events) listener(frame.event);
        return;
      case 'screen_attached':
        if (this.attaching?.service === frame.text) this.attaching.resolve();
        this.attaching = null;
        return;
      case 'screen_line':
        return this.screen?.listener.line(frame.text);
      case 'screen_detached': {
        const screen = this.screen;
        this.screen = null;
        return screen?.listener.detached(frame.text);
      }
      case 'screen_error':
        if (this.attaching) {
          this.attaching.reject(new Error(frame.text));
          this.attaching = null;
        } else this.notice(frame.text);
        return;
    }
  }

  /** The connection dropped: settle what waited on it, then reconnect unless told not to. */
  private onClosed(code: number, reason: string): void {
    this.ws = null;
    for (const [id, pending] of this.commands) {
      this.commands.delete(id);
      pending.onLine({ kind: 'error', text: 'the connection to the controller was lost before the command finished' });
      pending.resolve({ success: false, message: 'connection lost' });
    }
    for (const [id, done] of this.completions) {
      this.completions.delete(id);
      done([]);
    }
    this.attaching?.reject(new Error('the connection to the controller was lost'));
    this.attaching = null;
    const screen = this.screen;
    this.screen = null;
    screen?.listener.detached('the connection to the controller was lost');
    if (this.closing) return;
    if (code === CLOSE_POLICY) {
      this.options.onFatal?.(`the controller refused the token: ${reason || 'policy violation'}`);
      return;
    }
    if (!this.options.reconnect) {
      this.options.onFatal?.(`the controller closed the connection (${code}${reason ? `: ${reason}` : ''})`);
      return;
    }
    this.retry(RECONNECT_FIRST_MS, `connection lost (${code}${reason ? `: ${reason}` : ''})`);
  }

  private retry(delayMs: number, why: string): void {
    this.notice(`${why}; reconnecting in ${Math.round(delayMs / 1000)} s`);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closing) return;
      this.connect().then(
        () => this.notice(`reconnected to ${this.options.url}`),
        (error: Error) => {
          if (this.closing) return;
          if (/refused the token/.test(error.message)) return this.options.onFatal?.(error.message);
          this.retry(nextBackoff(delayMs), error.message);
        },
      );
    }, delayMs);
  }

  private notConnected(onLine: (line: OutputLine) => void): CommandResult {
    const message = this.options.reconnect ? 'not connected to the controller; reconnecting' : 'not connected to the controller';
    onLine({ kind: 'error', text: message });
    return { success: false, message };
  }

  private notice(text: string): void {
    for (const listener of this.notices) listener(text);
  }

  private send(frame: InboundFrame, ws: WebSocket | null = this.ws): void {
    if (ws?.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
  }
}

/** The wait before the next attempt: doubling from 1 s, never more than 30 s. */
export function nextBackoff(previousMs: number): number {
  return Math.min(Math.max(previousMs * 2, RECONNECT_FIRST_MS), RECONNECT_MAX_MS);
}

/** http://host:8080[/base] → ws://host:8080[/base]/api/console/stream (https → wss). */
export function socketUrl(base: string): string {
  const url = new URL(base);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/api/console/stream`;
  url.search = '';
  return url.toString();
}

/** Why a console could not be opened, in words a person can act on. */
function refusal(url: string, code: number, reason: string, httpStatus?: string): string {
  if (code === CLOSE_POLICY) return `the controller at ${url} refused the token (${reason || 'policy'}); it needs the master token or an admin JWT`;
  if (httpStatus === '429') return `the controller at ${url} is rate limiting this address (HTTP 429); try again in a minute or raise [api] rate_limit`;
  if (httpStatus) return `${url} answered HTTP ${httpStatus} instead of opening a console: is it an svc controller (and the right path, behind a proxy)?`;
  // 1006: the connection ended without a close frame, which is what a refused TCP connect looks like.
  if (code === 1006) return `nothing answers at ${url}: is the controller running there, with [api] enabled and reachable from here?`;
  return `could not open a console on ${url} (close ${code}${reason ? `: ${reason}` : ''})`;
}

/**
 * A frame to act on, or null. Checked loosely on purpose: a newer controller may send a line
 * type this build does not know (it prints as text), but an output frame must carry its line.
 */
function parse(data: unknown): OutboundFrame | null {
  if (typeof data !== 'string') return null;
  try {
    const value = JSON.parse(data) as OutboundFrame;
    if (!value || typeof value !== 'object' || typeof value.type !== 'string') return null;
    if (value.type === 'output' && typeof (value.line as { text?: unknown } | undefined)?.text !== 'string') return null;
    return value;
  } catch {
    return null;
  }
}

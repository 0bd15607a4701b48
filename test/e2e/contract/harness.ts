/**
 * What the client-contract test needs beside the shape checker: HTTP calls made the way each
 * client makes them, a collector of problems that reports every one of a test's mismatches at
 * once (route and field path in each line), and a WebSocket client that keeps its frames.
 */
import { waitFor } from '../../support/controller';
import { shapeProblems, type Shape } from './expect-shape';

/** An answer: status, raw text, and the parsed JSON when the body is JSON (else undefined). */
export interface Answer {
  status: number;
  text: string;
  json: unknown;
  headers: Headers;
  bytes: Uint8Array;
}

export interface CallOptions {
  /** A JSON body (serialized). */
  json?: unknown;
  /** A raw body (FormData, bytes); sent without the JSON content type. */
  body?: RequestInit['body'];
  /** Whether to send `Content-Type: application/json`; default: with a JSON body, or on every call of a client that always does (without a raw body). */
  jsonHeader?: boolean;
  token?: string | null;
  /** Extra request headers (Origin, CORS preflight headers). */
  headers?: Record<string, string>;
}

/** A client of the API: the dashboard and the plugins differ only in their token and headers. */
export class Client {
  constructor(
    readonly url: string,
    readonly token: string,
    /** Whether every call carries `Content-Type: application/json` (dashboard apiFetch, SDK). */
    private readonly alwaysJson: boolean,
  ) {}

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const headers = new Headers(options.headers);
    const token = options.token === undefined ? this.token : options.token;
    if (token !== null) headers.set('authorization', `Bearer ${token}`);
    let body: RequestInit['body'] = options.body;
    if (options.json !== undefined) body = JSON.stringify(options.json);
    if (options.json !== undefined || (options.jsonHeader ?? (this.alwaysJson && options.body === undefined))) headers.set('content-type', 'application/json');
    const response = await fetch(this.url + path, { method, headers, body });
    const bytes = new Uint8Array(await response.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: response.status, text, json, headers: response.headers, bytes };
  }

  get(path: string, options?: CallOptions) {
    return this.call('GET', path, options);
  }
  post(path: string, json?: unknown, options?: CallOptions) {
    return this.call('POST', path, { ...options, json });
  }
  put(path: string, json: unknown) {
    return this.call('PUT', path, { json });
  }
  patch(path: string, json: unknown) {
    return this.call('PATCH', path, { json });
  }
  delete(path: string, json?: unknown) {
    return this.call('DELETE', path, { json });
  }
}

/** A JSON object's field, for building a client's body out of an answer. */
export function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Polls `check` every `intervalMs` (250 by default: conditions that take a sampler's period) until it is truthy. */
export const eventually = <T>(check: () => Promise<T>, { what, timeoutMs, intervalMs = 250 }: { what: string; timeoutMs: number; intervalMs?: number }): Promise<NonNullable<T>> =>
  waitFor(check, { what, timeoutMs, intervalMs });

/** The value as a JSON object ({} when it is not one). */
export const obj = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});
/** The value as an array ([] when it is not one). */
export const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const snippet = (text: string) => (text.length > 300 ? `${text.slice(0, 297)}...` : text);

/**
 * Problems of one test, collected rather than thrown one by one, so a run lists every
 * mismatch a client would meet; `done()` fails the test with all of them.
 */
export class Checks {
  private readonly problems: string[] = [];

  /** Every field path of `shape` against the answer; each problem prefixed with `label`. */
  shape(label: string, value: unknown, shape: Shape): void {
    for (const problem of shapeProblems(value, shape)) this.problems.push(`${label}: ${problem}`);
  }

  /** The status is one of `expected`; otherwise a problem quoting the body. */
  status(label: string, answer: Answer, ...expected: number[]): boolean {
    if (expected.includes(answer.status)) return true;
    this.problems.push(`${label}: status ${answer.status}, expected ${expected.join(' or ')}: ${snippet(answer.text)}`);
    return false;
  }

  that(label: string, ok: boolean, detail: string): boolean {
    if (!ok) this.problems.push(`${label}: ${detail}`);
    return ok;
  }

  /** Equal as JSON; the problem shows both sides. */
  equal(label: string, actual: unknown, expected: unknown): boolean {
    return this.that(label, JSON.stringify(actual) === JSON.stringify(expected), `expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }

  /** Runs a step; a throw (a timeout, a refused socket) becomes a problem instead of ending the test. */
  async step(label: string, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      this.problems.push(`${label}: ${(error as Error).message}`);
    }
  }

  done(): void {
    if (this.problems.length > 0) throw new Error(`${this.problems.length} contract problem(s):\n- ${this.problems.join('\n- ')}`);
  }
}

/** A WebSocket that keeps every text frame, opened the dashboard's way (`?token=`). */
export class Socket {
  readonly frames: string[] = [];
  closeCode = 0;
  private constructor(readonly ws: WebSocket) {
    ws.addEventListener('message', (m) => this.frames.push(typeof m.data === 'string' ? m.data : new TextDecoder().decode(m.data as ArrayBuffer)));
    ws.addEventListener('close', (e) => (this.closeCode = e.code || 1005));
  }

  static async open(url: string, timeoutMs = 5000): Promise<Socket> {
    const socket = new Socket(new WebSocket(url));
    let failed = false;
    socket.ws.addEventListener('error', () => (failed = true));
    await waitFor(() => failed || socket.closeCode !== 0 || socket.ws.readyState === WebSocket.OPEN, { what: `socket ${url.replace(/token=[^&]+/, 'token=…')} open`, timeoutMs });
    if (socket.ws.readyState !== WebSocket.OPEN) throw new Error(`socket ${url.replace(/token=[^&]+/, 'token=…')} did not open (close code ${socket.closeCode})`);
    return socket;
  }

  /** Frames parsed as JSON (a frame that is not JSON is kept as its text). */
  get messages(): unknown[] {
    return this.frames.map((f) => {
      try {
        return JSON.parse(f) as unknown;
      } catch {
        return f;
      }
    });
  }

  send(text: string): void {
    this.ws.send(text);
  }

  close(): void {
    this.ws.close();
  }
}

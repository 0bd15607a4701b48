import type { Socket } from 'bun';
import { concatBytes, decodePacket, decodeWholeString, encodePacket, encodeString, encodeUnsignedShort } from './packet-codec';
import { PacketReader } from './packet-reader';
import { ServerListPingError, type ServerListPingFailure } from './slp-error';
import { parseServerStatus, type ServerStatus } from './slp-status';
import { encodeVarInt } from './varint';

/**
 * Minecraft Java Edition Server List Ping (the 1.7+ "modern" status protocol):
 *   C->S Handshake (0x00: protocol VarInt, address String, port u16, next state 1)
 *   C->S Status Request (0x00, empty)
 *   S->C Status Response (0x00: JSON String)
 *   C->S Ping Request (0x01: 8 opaque bytes)   -- only when measuring latency
 *   S->C Pong Response (0x01: the same 8 bytes)
 */

export type { ServerStatus, PlayerSample, JsonValue } from './slp-status';
export { ServerListPingError, type ServerListPingFailure } from './slp-error';

export interface PingResult extends ServerStatus {
  /**
   * Round trip in milliseconds (fractional) of the Ping/Pong exchange; of the Status
   * Request/Response instead when `measureLatency` is false or the pong never came.
   */
  latencyMs: number;
}

export interface PingOptions {
  /** Hard deadline for the whole exchange, connect included. Default 3000 ms. */
  timeoutMs?: number;
  /** Protocol version sent in the handshake. Default -1: by convention "pinging to find the version". */
  protocolVersion?: number;
  /** Send a Ping after the status to measure latency. Default true. */
  measureLatency?: boolean;
  /** Largest Status Response packet accepted, in bytes. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Address written into the handshake (proxies route on it). Default: `host`. */
  serverAddress?: string;
  /** Bytes sent before the handshake (the load balancer's PROXY protocol header). Default: none. */
  preamble?: Uint8Array;
}

export const DEFAULT_PING_TIMEOUT_MS = 3000;
export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

const STATUS_PACKET = 0x00;
const PING_PACKET = 0x01;

/**
 * Asks the server at host:port for its status.
 *
 * Contract: settles exactly once, within `timeoutMs` (plus event-loop latency), and the
 * socket is closed by then whatever happened. Rejects with a ServerListPingError whose
 * `code` says why. Once a valid status has arrived nothing can make it reject: a missing,
 * late or malformed pong only makes `latencyMs` fall back to the status round trip.
 *
 * Limit: Bun.connect gives no handle to abort a connect still in progress, so against an
 * address that drops SYNs the promise rejects on time but the OS keeps trying in the
 * background until its own connect timeout, and the socket is closed as soon as it opens.
 */
export function pingServer(host: string, port: number, options: PingOptions = {}): Promise<PingResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
  const measureLatency = options.measureLatency ?? true;
  const reader = new PacketReader(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES);
  const target = `${host}:${port}`;
  const pingToken = crypto.getRandomValues(new Uint8Array(8));

  return new Promise<PingResult>((resolve, reject) => {
    // Inside the executor so a bad port or version rejects instead of throwing synchronously.
    const handshake = encodeRequest(options.serverAddress ?? host, port, options.protocolVersion ?? -1);
    const request = options.preamble ? concatBytes([options.preamble, handshake]) : handshake;
    let socket: Socket<undefined> | null = null;
    let settled = false;
    let unwritten: Uint8Array | null = null;
    let status: ServerStatus | null = null;
    let requestSentAt = 0;
    let statusRoundTrip = 0;
    let pingSentAt = 0;

    const timer = setTimeout(() => {
      if (status) return succeed(statusRoundTrip);
      const phase = socket ? 'waiting for the status response' : 'connecting';
      fail('timeout', `timed out after ${timeoutMs} ms ${phase}`);
    }, timeoutMs);

    function fail(code: ServerListPingFailure, reason: string, cause?: unknown): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.terminate();
      reject(new ServerListPingError(code, `Server List Ping to ${target} failed: ${reason}`, { cause }));
    }

    function succeed(latencyMs: number): void {
      if (settled || !status) return;
      settled = true;
      clearTimeout(timer);
      socket?.end();
      resolve({ ...status, latencyMs });
    }

    /** Writes what the kernel takes now; `drain` writes the rest. */
    function send(bytes: Uint8Array): void {
      if (!socket) return;
      const pending = unwritten ? concatBytes([unwritten, bytes]) : bytes;
      const written = Math.max(0, socket.write(pending));
      unwritten = written < pending.length ? pending.subarray(written) : null;
    }

    function onFrame(frame: Uint8Array): void {
      const { id, payload } = decodePacket(frame);
      if (!status) {
        if (id !== STATUS_PACKET) throw new Error(`expected a Status Response (packet 0x00), got packet 0x${id.toString(16)}`);
        status = parseServerStatus(decodeWholeString(payload));
        statusRoundTrip = performance.now() - requestSentAt;
        if (!measureLatency) return succeed(statusRoundTrip);
        pingSentAt = performance.now();
        send(encodePacket(PING_PACKET, pingToken));
        return;
      }
      const isOurPong = id === PING_PACKET && payload.length === 8 && payload.every((b, i) => b === pingToken[i]);
      succeed(isOurPong ? performance.now() - pingSentAt : statusRoundTrip);
    }

    /** Connection gone before we settled: fine after a status, a failure before one. */
    function onGone(error?: Error): void {
      if (status) return succeed(statusRoundTrip);
      const partial = reader.buffered > 0 ? ` (${reader.buffered} bytes of an incomplete packet received)` : '';
      const why = error ? `: ${error.message}` : '';
      fail('closed', `connection closed before the status response${partial}${why}`, error);
    }

    try {
      Bun.connect({
        hostname: host,
        port,
        socket: {
          open(s) {
            socket = s;
            if (settled) return s.terminate(); // the deadline passed while connecting
            requestSentAt = performance.now();
            send(request);
          },
          data(_s, chunk) {
            if (settled) return;
            try {
              reader.push(chunk);
              for (let frame = reader.next(); frame && !settled; frame = reader.next()) onFrame(frame);
            } catch (error) {
              if (status) return succeed(statusRoundTrip);
              fail('protocol', `invalid status response: ${messageOf(error)}`, error);
            }
          },
          drain() {
            if (unwritten && !settled) send(new Uint8Array(0));
          },
          end: () => onGone(),
          close: (_s, error) => onGone(error),
          error: (_s, error) => onGone(error),
          connectError(_s, error) {
            const refused = (error as { code?: unknown }).code === 'ECONNREFUSED';
            fail(refused ? 'refused' : 'connect', refused ? 'connection refused' : `cannot connect: ${error.message}`, error);
          },
        },
      }).then(
        (s) => {
          socket ??= s;
          if (settled) s.terminate();
        },
        // Normally already handled by connectError; this catches failures before the socket exists (bad host, bad port).
        (error: unknown) => fail('connect', `cannot connect: ${messageOf(error)}`, error),
      );
    } catch (error) {
      fail('connect', `cannot connect: ${messageOf(error)}`, error); // invalid options Bun rejects synchronously
    }
  });
}

/** Handshake (next state 1 = status) and Status Request, sent together in one write. */
function encodeRequest(address: string, port: number, protocolVersion: number): Uint8Array {
  const handshake = encodePacket(
    0x00,
    encodeVarInt(protocolVersion),
    encodeString(address),
    encodeUnsignedShort(port),
    encodeVarInt(1),
  );
  return concatBytes([handshake, encodePacket(STATUS_PACKET)]);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

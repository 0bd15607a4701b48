import { randomBytes } from 'node:crypto';
import { Wakeup } from './wake';

export interface RawFrame {
  opcode: number;
  payload: Buffer;
}

/**
 * A minimal WebSocket client over a raw TCP socket, for tests that must see control frames
 * (pings) or stay silent on purpose (no automatic pong), which the WebSocket API hides.
 */
export class RawWebSocket {
  readonly frames: RawFrame[] = [];
  closed = false;
  private buffer = Buffer.alloc(0);
  private handshakeDone = false;
  private socket!: Awaited<ReturnType<typeof Bun.connect>>;
  private readonly wakeup = new Wakeup();
  status = 0;

  static async connect(url: string, headers: Record<string, string> = {}): Promise<RawWebSocket> {
    const client = new RawWebSocket();
    const target = new URL(url);
    const key = randomBytes(16).toString('base64');
    client.socket = await Bun.connect({
      hostname: target.hostname,
      port: Number(target.port),
      socket: {
        data: (_socket, chunk) => client.onData(Buffer.from(chunk)),
        close: () => {
          client.closed = true;
          client.notify();
        },
        error: () => {
          client.closed = true;
          client.notify();
        },
      },
    });
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
    client.socket.write(
      `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`,
    );
    await client.until(() => client.handshakeDone || client.closed, 'handshake');
    return client;
  }

  /** Stops reading from the socket (a stalled peer): what the server sends piles up on its side. */
  stopReading(): void {
    this.socket.pause();
  }

  /** Sends a masked frame (clients must mask). */
  send(opcode: number, payload: Buffer = Buffer.alloc(0)): void {
    const mask = randomBytes(4);
    const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!));
    let header: Buffer;
    if (payload.length < 126) header = Buffer.from([0x80 | opcode, 0x80 | payload.length]);
    else if (payload.length < 65536) header = Buffer.from([0x80 | opcode, 0x80 | 126, payload.length >> 8, payload.length & 255]);
    else {
      header = Buffer.alloc(10);
      header[0] = 0x80 | opcode;
      header[1] = 0x80 | 127;
      header.writeBigUInt64BE(BigInt(payload.length), 2);
    }
    this.socket.write(Buffer.concat([header, mask, masked]));
  }

  end(): void {
    this.socket.end();
  }

  async until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out waiting for ${what}`);
      await this.wakeup.wait(remaining);
    }
  }

  private notify(): void {
    this.wakeup.wake();
  }

  private onData(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (!this.handshakeDone) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = this.buffer.subarray(0, end).toString();
      this.status = Number(head.split(' ')[1]);
      this.buffer = this.buffer.subarray(end + 4);
      this.handshakeDone = true;
    }
    for (;;) {
      if (this.buffer.length < 2) break;
      const opcode = this.buffer[0]! & 0x0f;
      let length = this.buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) break;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) break;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + length) break;
      this.frames.push({ opcode, payload: Buffer.from(this.buffer.subarray(offset, offset + length)) });
      this.buffer = this.buffer.subarray(offset + length);
    }
    this.notify();
  }
}

export const OPCODE = { text: 1, close: 8, ping: 9, pong: 10 } as const;

/** Close code of a close frame's payload. */
export const closeCode = (frame: RawFrame): number => (frame.payload.length >= 2 ? frame.payload.readUInt16BE(0) : 1005);

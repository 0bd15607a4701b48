import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ping as referencePing } from 'minecraft-protocol';
import { encodePacket, encodeString } from '../../../src/core/net/packet-codec';
import { PacketReader } from '../../../src/core/net/packet-reader';
import { pingServer, ServerListPingError } from '../../../src/core/net/server-list-ping';
import { decodeVarInt, encodeVarInt, varIntSize } from '../../../src/core/net/varint';
import { type FixtureProcess, spawnFixture } from '../../fixtures/spawn-fixture';
import { closedPort, type PeerConnection, startPeer, type ScriptedPeer } from './scripted-peer';

const FAKE_PAPER = join(import.meta.dir, '../../fixtures/fake-paper.ts');
const FLYING_SQUID = join(import.meta.dir, '../../fixtures/flying-squid-server.ts');
const STARTED = /Starting Minecraft server on 127\.0\.0\.1:(\d+)/;
const DONE = /^\[12:00:00 INFO\]: Done \(1\.234s\)! For help, type "help"$/;

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const json = (value: unknown) => JSON.stringify(value);
const STATUS = { version: { name: 'Peer 1.21', protocol: 767 }, players: { online: 1, max: 5 }, description: 'peer' };
const statusPacket = (doc: unknown = STATUS) => encodePacket(0x00, encodeString(typeof doc === 'string' ? doc : json(doc)));

/** Rejection of `promise` as a ServerListPingError, and how long it took from `since`. */
async function rejection(promise: Promise<unknown>, since = performance.now()): Promise<{ error: ServerListPingError; ms: number }> {
  try {
    await promise;
  } catch (error) {
    if (!(error instanceof ServerListPingError)) throw error;
    return { error, ms: performance.now() - since };
  }
  throw new Error('expected the ping to reject');
}

const temps: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-net-'));
  temps.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe('VarInt', () => {
  const table: [number, string][] = [
    [0, '00'],
    [1, '01'],
    [127, '7f'],
    [128, '8001'],
    [255, 'ff01'],
    [25565, 'ddc701'],
    [2097151, 'ffff7f'],
    [2147483647, 'ffffffff07'],
    [-1, 'ffffffff0f'],
    [-2147483648, '8080808008'],
  ];

  test.each(table)('%d <-> %s', (value, bytes) => {
    expect(hex(encodeVarInt(value))).toBe(bytes);
    expect(varIntSize(value)).toBe(bytes.length / 2);
    expect(decodeVarInt(Buffer.from(bytes, 'hex'))).toEqual({ value, bytes: bytes.length / 2 });
  });

  test('decodes at an offset and reports missing bytes as null', () => {
    expect(decodeVarInt(Buffer.from('aaddc701', 'hex'), 1)).toEqual({ value: 25565, bytes: 3 });
    expect(decodeVarInt(Buffer.from('ddc7', 'hex'))).toBeNull();
    expect(decodeVarInt(new Uint8Array(0))).toBeNull();
    expect(decodeVarInt(Buffer.from('ddc701', 'hex'), 0, 2)).toBeNull(); // `end` bounds the read
  });

  test('accepts a non-minimal 5-byte encoding, rejects a 6th byte', () => {
    expect(decodeVarInt(Buffer.from('8080808000', 'hex'))).toEqual({ value: 0, bytes: 5 });
    expect(() => decodeVarInt(Buffer.from('ffffffffff01', 'hex'))).toThrow('longer than 5 bytes');
  });

  test('refuses to encode what is not an int32', () => {
    for (const bad of [2147483648, -2147483649, 1.5, Number.NaN]) expect(() => encodeVarInt(bad)).toThrow(RangeError);
  });
});

describe('PacketReader', () => {
  test('reassembles a packet fed one byte at a time, then the next one from the same chunk', () => {
    const first = statusPacket();
    const second = encodePacket(0x01, Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8));
    const stream = new Uint8Array([...first, ...second]);
    const reader = new PacketReader(1024);
    const frames: Uint8Array[] = [];
    for (const byte of stream) {
      reader.push(Uint8Array.of(byte));
      for (let f = reader.next(); f; f = reader.next()) frames.push(f);
    }
    expect(frames.map(hex)).toEqual([hex(first.subarray(varIntSize(first.length - 2))), hex(second.subarray(1))]);
    expect(reader.buffered).toBe(0);
  });

  test('rejects an oversized or empty packet as soon as its length is known', () => {
    expect(() => new PacketReader(1024).push(encodeVarInt(1025))).toThrow('exceeds the 1024-byte limit');
    expect(() => new PacketReader(1024).push(Uint8Array.of(0))).toThrow('invalid packet length 0');
  });
});

describe('pingServer against peer servers', () => {
  let peer: ScriptedPeer | undefined;
  afterEach(() => peer?.stop());

  test('sends Handshake (protocol -1, address, port, next state 1) then Status Request, and closes after the pong', async () => {
    peer = startPeer((conn) => answer(conn));
    const result = await pingServer('127.0.0.1', peer.port);
    const port = Buffer.alloc(2);
    port.writeUInt16BE(peer.port);
    const address = hex(Buffer.from('127.0.0.1'));
    const handshake = `1300ffffffff0f09${address}${port.toString('hex')}01`;
    expect(hex(peer.connections[0]?.received ?? new Uint8Array()).slice(0, handshake.length + 4)).toBe(`${handshake}0100`);
    // (Not `latencyMs: expect.any(Number)` inside toMatchObject: Bun 1.4.5 writes the matcher into `result`.)
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
    expect(result).toMatchObject(STATUS);
    await peer.waitForClosed(1, 2000);
  });

  test('protocolVersion and serverAddress options go into the handshake', async () => {
    peer = startPeer((conn) => answer(conn));
    await pingServer('127.0.0.1', peer.port, { protocolVersion: 767, serverAddress: 'mc.example' });
    const received = peer.connections[0]?.received ?? new Uint8Array();
    expect(hex(received.subarray(2, 4))).toBe(hex(encodeVarInt(767)));
    expect(hex(received.subarray(4, 15))).toBe(hex(encodeString('mc.example')));
  });

  test('reads a status split into 1-byte writes with a 5-byte length VarInt', async () => {
    const body = encodePacket(0x00, encodeString(json({ ...STATUS, description: { text: 'x'.repeat(3000) } }))).subarray(2);
    // Length as a non-minimal 5-byte VarInt: legal, and the widest a reader must accept.
    const prefix = Uint8Array.of(0x80 | (body.length & 0x7f), 0x80 | (body.length >> 7), 0x80, 0x80, 0x00);
    peer = startPeer((conn) => {
      if (conn.received.length === statusRequestEnd(conn)) void drip(conn, new Uint8Array([...prefix, ...body]));
    });
    const result = await pingServer('127.0.0.1', peer.port, { measureLatency: false, timeoutMs: 5000 });
    expect(result.description).toEqual({ text: 'x'.repeat(3000) });
  });

  test('reads a 600 KB status that spans many TCP chunks', async () => {
    const big = { ...STATUS, description: { text: 'y'.repeat(600_000) } };
    peer = startPeer((conn) => answer(conn, statusPacket(big)));
    const result = await pingServer('127.0.0.1', peer.port);
    expect(result.description).toEqual(big.description);
  });

  test('keeps player sample entries and raw description values', async () => {
    const sample = [{ name: 'Notch', id: '069a79f4-44e9-4726-a5be-fca90e38aaf5' }];
    const doc = { ...STATUS, players: { online: 1, max: 5, sample }, description: ['', { text: 'hi', color: 'red' }] };
    peer = startPeer((conn) => answer(conn, statusPacket(doc)));
    expect(await pingServer('127.0.0.1', peer.port)).toMatchObject({ players: { sample }, description: doc.description });
  });

  test('times out, bounded, against a server that accepts and never answers, and closes the socket', async () => {
    peer = startPeer();
    const { error, ms } = await rejection(pingServer('127.0.0.1', peer.port, { timeoutMs: 300 }));
    expect(error.code).toBe('timeout');
    expect(error.message).toBe(`Server List Ping to 127.0.0.1:${peer.port} failed: timed out after 300 ms waiting for the status response`);
    expect(ms).toBeGreaterThanOrEqual(295);
    expect(ms).toBeLessThan(1300);
    await peer.waitForClosed(1, 2000);
  });

  test('a status without a pong resolves at the deadline with the status round trip as latency', async () => {
    peer = startPeer((conn) => {
      if (isStatusRequested(conn) && conn.received.length === statusRequestEnd(conn)) conn.socket.write(statusPacket());
    });
    const started = performance.now();
    const result = await pingServer('127.0.0.1', peer.port, { timeoutMs: 300 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(295);
    expect(result).toMatchObject(STATUS);
    await peer.waitForClosed(1, 2000);
  });

  test('a status followed by a close (no pong) resolves at once', async () => {
    peer = startPeer((conn) => {
      if (isStatusRequested(conn)) conn.socket.end(statusPacket());
    });
    const started = performance.now();
    expect(await pingServer('127.0.0.1', peer.port, { timeoutMs: 3000 })).toMatchObject(STATUS);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  test('refused connection rejects fast', async () => {
    const port = closedPort();
    const { error, ms } = await rejection(pingServer('127.0.0.1', port, { timeoutMs: 3000 }));
    expect(error.code).toBe('refused');
    expect(error.message).toBe(`Server List Ping to 127.0.0.1:${port} failed: connection refused`);
    expect(ms).toBeLessThan(1000);
  });

  const garbage: [string, Uint8Array, 'protocol' | 'closed', string][] = [
    ['an over-long VarInt', Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff, 0x01), 'protocol', 'VarInt longer than 5 bytes'],
    ['a 2 MiB length announcement', encodeVarInt(2 * 1024 * 1024), 'protocol', 'exceeds the 1048576-byte limit'],
    ['the wrong packet id', encodePacket(0x05, encodeString('{}')), 'protocol', 'got packet 0x5'],
    ['a string length that disagrees with the packet', encodePacket(0x00, encodeVarInt(50), Buffer.from('{}')), 'protocol', 'does not match'],
    ['text that is not JSON', statusPacket('<html>hello</html>'), 'protocol', 'status is not JSON: "<html>hello</html>"'],
    ['JSON without version', statusPacket({ players: { online: 0, max: 1 } }), 'protocol', 'lacks version.name'],
    ['JSON with a bad sample', statusPacket({ ...STATUS, players: { online: 0, max: 1, sample: [{}] } }), 'protocol', 'sample[0]'],
    ['an HTTP reply, then close', Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n'), 'closed', 'incomplete packet'],
  ];

  test.each(garbage)('garbage rejects: %s', async (_name, reply, code, message) => {
    // The server keeps the connection open (except the HTTP case), so only the parser can end the wait.
    peer = startPeer((conn) => {
      if (!isStatusRequested(conn) || conn.received.length !== statusRequestEnd(conn)) return;
      if (code === 'closed') conn.socket.end(reply);
      else conn.socket.write(reply);
    });
    const { error, ms } = await rejection(pingServer('127.0.0.1', peer.port, { timeoutMs: 3000 }));
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
    expect(ms).toBeLessThan(1000);
    await peer.waitForClosed(1, 2000);
  });

  test('maxResponseBytes lowers the cap', async () => {
    peer = startPeer((conn) => answer(conn));
    const { error } = await rejection(pingServer('127.0.0.1', peer.port, { maxResponseBytes: 16 }));
    expect(error.message).toContain('exceeds the 16-byte limit');
  });
});

describe('pingServer against fake-paper (child process)', () => {
  let server: FixtureProcess;
  let port = 0;
  let dir = '';

  beforeAll(async () => {
    dir = tempDir();
    writeFileSync(join(dir, 'server.properties'), 'server-port=0\nmotd=Fake Paper\nmax-players=42\n');
    server = spawnFixture(FAKE_PAPER, [], { cwd: dir });
    port = Number((await server.waitForLine(STARTED, 10_000))[1]);
    await server.waitForLine(DONE, 10_000);
  });
  afterAll(() => server.kill());

  test('reads its status', async () => {
    const result = await pingServer('127.0.0.1', port);
    expect(result).toMatchObject({
      version: { name: 'Paper 1.21.4', protocol: 769 },
      players: { online: 0, max: 42, sample: [] },
      description: { text: 'Fake Paper' },
    });
    expect(result.latencyMs).toBeLessThan(3000);
  });

  test('minecraft-protocol (reference client) reads the same status from the fixture', async () => {
    const result = await referencePing({ host: '127.0.0.1', port, version: '1.21.4', closeTimeout: 5000, noPongTimeout: 2000 });
    expect(result).toMatchObject({ version: { name: 'Paper 1.21.4', protocol: 769 }, players: { max: 42, online: 0 } });
  });

  test('console commands answer on stdout and in logs/latest.log; stop exits 0', async () => {
    server.send('say hello world');
    await server.waitForLine(/^\[12:00:00 INFO\]: \[Server\] hello world$/, 5000);
    server.send('list');
    await server.waitForLine(/There are 0 of a max of 42 players online: $/, 5000);
    server.send('bogus');
    await server.waitForLine(/Unknown command/, 5000);
    server.send('stop');
    expect(await server.waitForExit(5000)).toBe(0);
    expect(server.lines.at(-1)).toBe('[12:00:00 INFO]: Stopping server');
    expect(readFileSync(join(dir, 'logs/latest.log'), 'utf8')).toBe(`${server.lines.join('\n')}\n`);
    const { error } = await rejection(pingServer('127.0.0.1', port, { timeoutMs: 2000 }));
    expect(error.code).toBe('refused');
  });
});

describe('fake-paper behaviours', () => {
  const running: FixtureProcess[] = [];
  const start = (args: string[], env?: Record<string, string>, cwd = tempDir()) => {
    const child = spawnFixture(FAKE_PAPER, ['--port', '0', ...args], { cwd, env });
    running.push(child);
    return child;
  };
  afterAll(() => Promise.all(running.map((c) => c.kill())));

  test('--crash-after-ready exits with the code after Done', async () => {
    const child = start(['--crash-after-ready', '3']);
    await child.waitForLine(DONE, 10_000);
    expect(await child.waitForExit(5000)).toBe(3);
    expect(child.lines.at(-1)).toContain('fake-paper crash requested');
  });

  test('FAKE_PAPER_EXIT_IMMEDIATELY=137 exits at once with no output', async () => {
    const child = start([], { FAKE_PAPER_EXIT_IMMEDIATELY: '137' });
    expect(await child.waitForExit(5000)).toBe(137);
    expect(child.lines).toEqual([]);
  });

  test('--eula-check refuses to start without eula=true, and starts with it', async () => {
    const dir = tempDir();
    const refused = start(['--eula-check'], undefined, dir);
    expect(await refused.waitForExit(5000)).toBe(0);
    expect(refused.lines.at(-1)).toBe(
      '[12:00:00 INFO]: You need to agree to the EULA in order to run the server. Go to eula.txt for more info.',
    );
    expect(readFileSync(join(dir, 'eula.txt'), 'utf8')).toContain('eula=false');
    writeFileSync(join(dir, 'eula.txt'), 'eula=true\n');
    await start(['--eula-check'], undefined, dir).waitForLine(DONE, 10_000);
  });

  test('--hang-on-stop ignores stop and SIGTERM, dies only to SIGKILL', async () => {
    const child = start(['--hang-on-stop']);
    await child.waitForLine(DONE, 10_000);
    child.send('stop');
    child.proc.kill('SIGTERM');
    // Without its handler SIGTERM kills at once, so an answer to a later command proves both were ignored.
    child.send('say still here');
    await child.waitForLine(/\[Server\] still here$/, 5000);
    expect(child.lines.some((l) => l.includes('Stopping server'))).toBe(false);
    await child.kill();
    expect(child.proc.signalCode).toBe('SIGKILL');
  });

  test('--done-delay-ms delays Done; commands typed earlier run after it', async () => {
    const child = start(['--done-delay-ms', '400']);
    await child.waitForLine(/Preparing level/, 10_000);
    const started = performance.now();
    child.send('say early');
    await child.waitForLine(/\[Server\] early$/, 5000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    const done = child.lines.findIndex((l) => DONE.test(l));
    expect(done).toBeGreaterThan(-1);
    expect(child.lines.findIndex((l) => l.endsWith('[Server] early'))).toBeGreaterThan(done);
  });

  test('--no-done listens but never reports Done', async () => {
    const child = start(['--no-done']);
    const listening = Number((await child.waitForLine(STARTED, 10_000))[1]);
    expect((await pingServer('127.0.0.1', listening)).players.max).toBe(20);
    child.send('list'); // queued behind a Done that never comes
    expect(child.lines.some((l) => DONE.test(l) || l.includes('There are'))).toBe(false);
  });
});

describe('pingServer against a real flying-squid server', () => {
  let squid: FixtureProcess;
  let port = 0;

  beforeAll(async () => {
    squid = spawnFixture(FLYING_SQUID, ['--port', '0', '--max-players', '13', '--motd', 'svc squid', '--version', '1.21.4'], {
      cwd: tempDir(),
    });
    port = Number((await squid.waitForLine(/Server listening on port (\d+)/, 30_000))[1]);
  }, 35_000);
  afterAll(() => squid.kill());

  test('reads its real status', async () => {
    const result = await pingServer('127.0.0.1', port);
    expect(result).toMatchObject({
      version: { name: '1.21.4', protocol: 769 },
      players: { online: 0, max: 13 },
      description: { text: 'svc squid' },
    });
    expect(result.latencyMs).toBeLessThan(3000);
  });

  test('also with a concrete protocol version in the handshake', async () => {
    const result = await pingServer('127.0.0.1', port, { protocolVersion: 767 });
    expect(result.players.max).toBe(13);
  });
});

/** True once the client's Handshake and Status Request have both arrived. */
function isStatusRequested(conn: PeerConnection): boolean {
  return conn.received.length >= statusRequestEnd(conn);
}

/** Offset just past the Status Request: handshake frame + the 2-byte `01 00`. */
function statusRequestEnd(conn: PeerConnection): number {
  const length = decodeVarInt(conn.received);
  return length ? length.bytes + length.value + 2 : Number.POSITIVE_INFINITY;
}

/** A well-behaved server: status after the request, pong (echo) after the ping, then close. */
function answer(conn: PeerConnection, status: Uint8Array = statusPacket()): void {
  const end = statusRequestEnd(conn);
  if (conn.received.length === end) conn.socket.write(status);
  if (conn.received.length === end + 10) conn.socket.end(conn.received.subarray(end));
}

/** Writes `bytes` one per event-loop turn, so the client sees them in many separate reads. */
async function drip(conn: PeerConnection, bytes: Uint8Array): Promise<void> {
  for (const byte of bytes) {
    if (conn.closed) return;
    conn.socket.write(Uint8Array.of(byte));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

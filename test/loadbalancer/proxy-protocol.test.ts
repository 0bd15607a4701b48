import { afterAll, describe, expect, test } from 'bun:test';
import { encodeProxyV2, encodeProxyV2Local, parseIp } from '../../src/loadbalancer/proxy-protocol';
import { waitFor } from '../support/controller';
import { connectClient, startBalancer, startPeer, type Peer, type TestBalancer } from './support';

/**
 * An independent reader of the PROXY v2 header, written from haproxy's proxy-protocol.txt
 * (section 2.2) for this test: it shares no code with the encoder.
 */
interface ParsedHeader {
  command: 'LOCAL' | 'PROXY';
  family: 'UNSPEC' | 'INET' | 'INET6';
  transport: 'UNSPEC' | 'STREAM';
  source?: { address: string; port: number };
  destination?: { address: string; port: number };
  /** Bytes taken by the header. */
  size: number;
}

function parseHeader(bytes: Uint8Array): ParsedHeader {
  const signature = [13, 10, 13, 10, 0, 13, 10, 81, 85, 73, 84, 10];
  if (bytes.length < 16) throw new Error('short header');
  signature.forEach((b, i) => {
    if (bytes[i] !== b) throw new Error(`bad signature byte ${i}`);
  });
  const verCmd = bytes[12]!;
  if (verCmd >> 4 !== 2) throw new Error(`version ${verCmd >> 4}`);
  const command = (verCmd & 0x0f) === 0 ? 'LOCAL' : (verCmd & 0x0f) === 1 ? 'PROXY' : undefined;
  if (!command) throw new Error('bad command');
  const famByte = bytes[13]!;
  const family = ({ 0: 'UNSPEC', 1: 'INET', 2: 'INET6' } as const)[famByte >> 4 as 0 | 1 | 2];
  const transport = ({ 0: 'UNSPEC', 1: 'STREAM' } as const)[(famByte & 0x0f) as 0 | 1];
  const length = (bytes[14]! << 8) | bytes[15]!;
  const body = bytes.subarray(16, 16 + length);
  if (body.length !== length) throw new Error('truncated');
  const port = (at: number) => (body[at]! << 8) | body[at + 1]!;
  const header: ParsedHeader = { command, family, transport, size: 16 + length };
  if (family === 'INET') {
    const ip = (at: number) => [...body.subarray(at, at + 4)].join('.');
    header.source = { address: ip(0), port: port(8) };
    header.destination = { address: ip(4), port: port(10) };
  } else if (family === 'INET6') {
    const ip = (at: number) =>
      Array.from({ length: 8 }, (_, i) => ((body[at + i * 2]! << 8) | body[at + i * 2 + 1]!).toString(16)).join(':');
    header.source = { address: ip(0), port: port(32) };
    header.destination = { address: ip(16), port: port(34) };
  }
  return header;
}

describe('encodeProxyV2', () => {
  test('IPv4: PROXY, TCP over IPv4, length 12, addresses and ports in order', () => {
    const bytes = encodeProxyV2({ sourceAddress: '203.0.113.7', sourcePort: 51234, destinationAddress: '10.0.0.2', destinationPort: 25565 });
    expect(bytes.length).toBe(28);
    expect(Buffer.from(bytes.subarray(12, 16)).toString('hex')).toBe('2111000c');
    expect(parseHeader(bytes)).toEqual({
      command: 'PROXY', family: 'INET', transport: 'STREAM', size: 28,
      source: { address: '203.0.113.7', port: 51234 }, destination: { address: '10.0.0.2', port: 25565 },
    });
  });

  test('IPv6: TCP over IPv6, length 36, compressed forms expanded', () => {
    const bytes = encodeProxyV2({ sourceAddress: '2001:db8::1', sourcePort: 1, destinationAddress: 'fe80::a:b%eth0', destinationPort: 65535 });
    expect(bytes.length).toBe(52);
    expect(Buffer.from(bytes.subarray(12, 16)).toString('hex')).toBe('21210024');
    expect(parseHeader(bytes)).toMatchObject({
      family: 'INET6',
      source: { address: '2001:db8:0:0:0:0:0:1', port: 1 },
      destination: { address: 'fe80:0:0:0:0:0:a:b', port: 65535 },
    });
  });

  test('IPv4-mapped IPv6 (what a dual-stack listener reports) goes as IPv4', () => {
    const bytes = encodeProxyV2({ sourceAddress: '::ffff:192.0.2.9', sourcePort: 4000, destinationAddress: '::ffff:c000:20a', destinationPort: 25565 });
    expect(parseHeader(bytes)).toMatchObject({ family: 'INET', source: { address: '192.0.2.9' }, destination: { address: '192.0.2.10' } });
  });

  test('mixed families: the IPv4 side goes as its mapped IPv6 form', () => {
    const bytes = encodeProxyV2({ sourceAddress: '192.0.2.9', sourcePort: 4000, destinationAddress: '::1', destinationPort: 25565 });
    expect(parseHeader(bytes)).toMatchObject({ family: 'INET6', source: { address: '0:0:0:0:0:ffff:c000:209' }, destination: { address: '0:0:0:0:0:0:0:1' } });
  });

  test('LOCAL header for health checks: UNSPEC, no addresses', () => {
    expect(parseHeader(encodeProxyV2Local())).toEqual({ command: 'LOCAL', family: 'UNSPEC', transport: 'UNSPEC', size: 16 });
  });

  test('not an address, not a port: throws', () => {
    expect(() => encodeProxyV2({ sourceAddress: 'example.org', sourcePort: 1, destinationAddress: '127.0.0.1', destinationPort: 1 })).toThrow('not an IP address');
    expect(() => encodeProxyV2({ sourceAddress: '127.0.0.1', sourcePort: 70000, destinationAddress: '127.0.0.1', destinationPort: 1 })).toThrow('not a TCP port');
    expect([...parseIp('[::1]')]).toEqual([...new Array(15).fill(0), 1]);
  });
});

/** Machines without an IPv6 loopback skip the IPv6 case. */
const IPV6_LOOPBACK = (() => {
  try {
    Bun.listen({ hostname: '::1', port: 0, socket: { data() {} } }).stop(true);
    return true;
  } catch {
    return false;
  }
})();

describe('PROXY header through a real balancer', () => {
  const peers: Peer[] = [];
  const balancers: TestBalancer[] = [];
  afterAll(() => {
    for (const b of balancers) b.stop();
    for (const p of peers) p.stop();
  });

  for (const [family, bind] of [['IPv4', '127.0.0.1'], ['IPv6', '::1']] as const) {
    test.skipIf(family === 'IPv6' && !IPV6_LOOPBACK)(`${family}: the header comes first with the client's address and the balancer's, then the client's bytes`, async () => {
      const peer = startPeer('record');
      peers.push(peer);
      const balancer = startBalancer(() => [peer.backend('Proxy-1')], { proxy_protocol: true, bind });
      balancers.push(balancer);
      const client = await Bun.connect({ hostname: bind, port: balancer.port, socket: { data() {} } });
      client.write('hello through the balancer');
      await waitFor(() => peer.connections[0] && Buffer.concat(peer.connections[0].received).includes('balancer'), { what: 'the bytes at the backend' });
      const received = Buffer.concat(peer.connections[0]!.received);
      const header = parseHeader(received);
      const expected = family === 'IPv4' ? '127.0.0.1' : '0:0:0:0:0:0:0:1';
      expect(header).toMatchObject({
        command: 'PROXY',
        family: family === 'IPv4' ? 'INET' : 'INET6',
        transport: 'STREAM',
        source: { address: expected, port: client.localPort },
        destination: { address: expected, port: balancer.port },
      });
      expect(received.subarray(header.size).toString()).toBe('hello through the balancer');
      client.end();
    });
  }

  test('the health check of a proxy that requires the header sends the LOCAL form, then the Server List Ping', async () => {
    const peer = startPeer('record');
    peers.push(peer);
    const balancer = startBalancer(() => [peer.backend('Proxy-1')], { proxy_protocol: true }, { timing: { healthCheckTimeoutMs: 300 } });
    balancers.push(balancer);
    const round = balancer.lb.checkHealth(); // the recording peer never answers: this probe fails on its timeout
    await waitFor(() => (peer.connections[0]?.bytes ?? 0) > 16, { what: 'the probe at the backend' });
    const received = Buffer.concat(peer.connections[0]!.received);
    const header = parseHeader(received);
    expect(header).toEqual({ command: 'LOCAL', family: 'UNSPEC', transport: 'UNSPEC', size: 16 });
    // then a Handshake packet: VarInt length, packet id 0x00, ..., next state 1 (status)
    const handshakeLength = received[16]!;
    expect(received[17]).toBe(0x00);
    expect(received[16 + handshakeLength]).toBe(1);
    await round;
  });

  test('without proxy_protocol the backend sees only the client bytes', async () => {
    const peer = startPeer('record');
    peers.push(peer);
    const balancer = startBalancer(() => [peer.backend('Proxy-1')]);
    balancers.push(balancer);
    const client = await connectClient(balancer.port);
    client.socket.write('plain');
    await waitFor(() => peer.connections[0]?.bytes === 5, { what: 'the bytes at the backend' });
    expect(Buffer.concat(peer.connections[0]!.received).toString()).toBe('plain');
    client.socket.end();
  });
});

import { describe, expect, test } from 'bun:test';
import { PortLeases, defaultPortRanges, portIsFree, type PortRanges } from '../../src/core/ports';

const small: PortRanges = { proxy: { first: 100, last: 102 }, backend: { first: 200, last: 203 }, bedrock: { first: 300, last: 300 } };

describe('PortLeases (probe injected)', () => {
  test('lowest free port, never a leased one, released ports come back', async () => {
    const leases = new PortLeases(small, async () => true);
    expect(await leases.lease('backend', 'A-1')).toBe(200);
    expect(await leases.lease('backend', 'A-2')).toBe(201);
    leases.release('A-1');
    expect(await leases.lease('backend', 'A-3')).toBe(200);
    expect(leases.holderOf(201)).toBe('A-2');
  });

  test('a port a foreign process holds is skipped', async () => {
    const busy = new Set([200, 201]);
    const leases = new PortLeases(small, async (port) => !busy.has(port));
    expect(await leases.lease('backend', 'A-1')).toBe(202);
  });

  test('concurrent leases never get the same port', async () => {
    const leases = new PortLeases(small, async () => {
      await Promise.resolve();
      return true;
    });
    const ports = await Promise.all([1, 2, 3, 4].map((i) => leases.lease('backend', `A-${i}`)));
    expect(new Set(ports).size).toBe(4);
  });

  test('an exhausted range is SERVICE_START_FAILED naming the range', async () => {
    const leases = new PortLeases(small, async () => true);
    await leases.lease('bedrock', 'A-1');
    await expect(leases.lease('bedrock', 'A-2')).rejects.toThrow('no free bedrock port between 300 and 300');
  });

  test('bedrock ports are probed for UDP too', async () => {
    const asked: boolean[] = [];
    const leases = new PortLeases(small, async (_port, udp) => {
      asked.push(udp);
      return true;
    });
    await leases.lease('bedrock', 'B-1');
    await leases.lease('backend', 'A-1');
    expect(asked).toEqual([true, false]);
  });

  test('fixed ports: leased or held elsewhere is DEDICATED_PORT_IN_USE; the same owner may lease again', async () => {
    const leases = new PortLeases(small, async (port) => port !== 9999);
    expect(await leases.leaseFixed(25570, 'survival')).toBe(25570);
    expect(await leases.leaseFixed(25570, 'survival')).toBe(25570);
    await expect(leases.leaseFixed(25570, 'creative')).rejects.toThrow('leased to survival');
    await expect(leases.leaseFixed(9999, 'creative')).rejects.toThrow('in use by another process');
  });

  test('reference ranges', () => {
    expect(defaultPortRanges(30000)).toEqual({ proxy: { first: 25565, last: 25664 }, backend: { first: 30000, last: 39999 }, bedrock: { first: 19132, last: 19231 } });
  });
});

describe('portIsFree (real sockets)', () => {
  test('a listening port is not free; after it closes it is', async () => {
    const listener = Bun.listen({ hostname: '0.0.0.0', port: 0, socket: { data() {} } });
    const port = listener.port;
    expect(await portIsFree(port)).toBe(false);
    listener.stop(true);
    expect(await portIsFree(port)).toBe(true);
  });

  test('a bound UDP port is not free for a UDP probe', async () => {
    const socket = await Bun.udpSocket({ hostname: '0.0.0.0', port: 0 });
    expect(await portIsFree(socket.port, '0.0.0.0', true)).toBe(false);
    socket.close();
  });
});

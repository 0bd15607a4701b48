import { ApiError } from '../errors';

export type PortKind = 'proxy' | 'backend' | 'bedrock';

export interface PortRanges {
  proxy: { first: number; last: number };
  backend: { first: number; last: number };
  bedrock: { first: number; last: number };
}

/**
 * The reference ranges: proxies from 25565, backends 30000–39999, Bedrock UDP 19132–19231.
 * With the load balancer on, players come in through it (on 25565 by default), so proxies
 * lease from the backend range like any server behind it.
 */
export function defaultPortRanges(backendStart: number, bedrockStart = 19132, loadBalancer = false): PortRanges {
  const backend = { first: backendStart, last: Math.min(65535, backendStart + 9999) };
  return {
    proxy: loadBalancer ? { ...backend } : { first: 25565, last: 25664 },
    backend,
    bedrock: { first: bedrockStart, last: Math.min(65535, bedrockStart + 99) },
  };
}

/** Whether nothing on this machine holds the port: a TCP listen (and, if asked, UDP bind) succeeds. */
export async function portIsFree(port: number, hostname = '0.0.0.0', udp = false): Promise<boolean> {
  try {
    const listener = Bun.listen({ hostname, port, socket: { data() {} } });
    listener.stop(true);
  } catch {
    return false;
  }
  if (!udp) return true;
  try {
    const socket = await Bun.udpSocket({ hostname, port });
    socket.close();
    return true;
  } catch {
    return false;
  }
}

/**
 * Port leases for the life of an instance. A port is handed out only when no lease holds it
 * and a bind probe says no process holds it either, so a port is never reused while a process
 * (ours or a stray one) still listens there. Leases are taken one at a time.
 */
export class PortLeases {
  private readonly leases = new Map<number, string>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly ranges: PortRanges,
    private readonly probe: (port: number, udp: boolean) => Promise<boolean> = (port, udp) => portIsFree(port, '0.0.0.0', udp),
  ) {}

  /** The lowest free port of the kind's range, leased to `owner`. */
  lease(kind: PortKind, owner: string): Promise<number> {
    return this.serialised(async () => {
      const { first, last } = this.ranges[kind];
      for (let port = first; port <= last; port++) {
        if (this.leases.has(port)) continue;
        if (!(await this.probe(port, kind === 'bedrock'))) continue;
        this.leases.set(port, owner);
        return port;
      }
      throw new ApiError('SERVICE_START_FAILED', `no free ${kind} port between ${first} and ${last}`);
    });
  }

  /** A fixed port (dedicated services); refused when leased or held by another process. */
  leaseFixed(port: number, owner: string): Promise<number> {
    return this.serialised(async () => {
      const holder = this.leases.get(port);
      if (holder !== undefined && holder !== owner) throw new ApiError('DEDICATED_PORT_IN_USE', `port ${port} is leased to ${holder}`);
      if (holder === undefined && !(await this.probe(port, false))) throw new ApiError('DEDICATED_PORT_IN_USE', `port ${port} is in use by another process`);
      this.leases.set(port, owner);
      return port;
    });
  }

  /** Takes over a port a running process already holds (re-attach after a controller restart). */
  adopt(port: number, owner: string): void {
    this.leases.set(port, owner);
  }

  release(owner: string): void {
    for (const [port, holder] of this.leases) if (holder === owner) this.leases.delete(port);
  }

  holderOf(port: number): string | undefined {
    return this.leases.get(port);
  }

  private serialised<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

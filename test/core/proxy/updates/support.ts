import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig, type Config } from '../../../../src/config/schema';
import { DedicatedStore } from '../../../../src/core/dedicated/store';
import type { GroupBody } from '../../../../src/core/groups/model';
import { GroupStore } from '../../../../src/core/groups/store';
import { ProxyUpdates, type ProxyUpdatesDeps } from '../../../../src/core/proxy/updates';
import { Upstreams } from '../../../../src/core/software/upstream/upstreams';
import { EventBus } from '../../../../src/events/bus';
import type { SvcEvent } from '../../../../src/events/catalogue';
import { createLogger } from '../../../../src/log';
import { digest, serveFake, type FakeUpstream } from '../../../fixtures/upstream/serve';
import { tempDir } from '../../../support/controller';

export const logLines: string[] = [];
export const log = createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => logLines.push(line) } });

/** A working directory with the two stores the updater reads and writes, and its events. */
export interface Network {
  dir: string;
  templates: string;
  groups: GroupStore;
  dedicated: DedicatedStore;
  bus: EventBus;
  events: SvcEvent[];
  /** A fresh store reading the group files back from disk. */
  groupOnDisk(name: string): ReturnType<GroupStore['get']>;
  dedicatedOnDisk(name: string): ReturnType<DedicatedStore['get']>;
  /** A proxy group with `jar` (if given) in its own template. */
  proxyGroup(name: string, version: string, jar?: Uint8Array, extra?: Record<string, unknown>): string;
  /** Files in a folder that are not the jar itself: temporaries and kept copies. */
  leftovers(folder: string): string[];
  remove(): void;
}

const preparer = { patch: () => undefined, plan: () => ({ argv: [], env: {} }) };

export function network(): Network {
  const { dir, remove } = tempDir('svc-proxy-updates-');
  const templates = join(dir, 'templates');
  const groups = new GroupStore(join(dir, 'config', 'groups'));
  groups.load();
  const dedicatedStore = (root: string) => new DedicatedStore({ configDir: join(root, 'config', 'dedicated'), root: join(root, 'dedicated'), groups, preparer });
  const dedicated = dedicatedStore(dir);
  dedicated.load();
  const bus = new EventBus();
  const events: SvcEvent[] = [];
  bus.subscribe((event) => events.push(event));
  return {
    dir,
    templates,
    groups,
    dedicated,
    bus,
    events,
    groupOnDisk(name) {
      const fresh = new GroupStore(join(dir, 'config', 'groups'));
      fresh.load();
      return fresh.get(name);
    },
    dedicatedOnDisk(name) {
      const fresh = dedicatedStore(dir);
      fresh.load();
      return fresh.get(name);
    },
    proxyGroup(name, version, jar, extra = {}) {
      groups.create({ name, software: 'VELOCITY', version, minInstances: 0, ...extra } as GroupBody);
      const folder = join(templates, name);
      mkdirSync(folder, { recursive: true });
      if (jar) writeFileSync(join(folder, 'server.jar'), jar);
      return join(folder, 'server.jar');
    },
    leftovers(folder) {
      return readdirSync(folder).filter((f) => f.startsWith('.'));
    },
    remove,
  };
}

export function updater(net: Network, papermcUrl: string, overrides: Partial<Config['proxy']> = {}, timing?: ProxyUpdatesDeps['timing']): ProxyUpdates {
  const software = { ...defaultConfig().software, papermc_url: papermcUrl };
  const proxy = { ...defaultConfig().proxy, ...overrides };
  return new ProxyUpdates({
    config: () => proxy,
    upstreams: new Upstreams(() => software),
    stores: { groups: net.groups, dedicated: net.dedicated },
    templatesRoot: net.templates,
    bus: net.bus,
    log,
    downloadTimeoutSeconds: () => 30,
    timing,
  });
}

/** Event types and data, in publish order, of the events an update publishes. */
export function updateEvents(events: readonly SvcEvent[]): [string, Record<string, string>][] {
  return events.filter((e) => e.type.startsWith('PROXY_UPDATE') || e.type === 'GROUP_UPDATED').map((e) => [e.type, e.data]);
}

/**
 * A PaperMC Fill fake whose one Velocity build (`3.4.0-SNAPSHOT` build 500) fails on download:
 * `500` answers HTTP 500; `cut` is a raw socket that promises the whole jar (Content-Length),
 * sends half of it and closes the connection.
 */
export function brokenVelocity(mode: '500' | 'cut', jar: Uint8Array): FakeUpstream {
  const half = Math.floor(jar.length / 2);
  const raw = Bun.listen({
    hostname: '127.0.0.1',
    port: 0,
    socket: {
      data(socket) {
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/java-archive\r\ncontent-length: ${jar.length}\r\nconnection: close\r\n\r\n`);
        socket.write(jar.subarray(0, half));
        socket.end();
      },
    },
  });
  const jarUrl = mode === 'cut' ? `http://127.0.0.1:${raw.port}/jar` : '';
  let base = '';
  const fake = serveFake((url) => {
    if (url.pathname === '/v3/projects/velocity') return Response.json({ project: { id: 'velocity' }, versions: { '3.0.0': ['3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT'] } });
    if (url.pathname === '/v3/projects/velocity/versions/3.4.0-SNAPSHOT/builds') {
      return Response.json([{ id: 500, channel: 'STABLE', downloads: { 'server:default': { name: 'velocity-500.jar', checksums: { sha256: digest('sha256', jar) }, size: jar.length, url: jarUrl || `${base}/jar` } } }]);
    }
    if (url.pathname === '/jar') return new Response('upstream broke', { status: 500 });
    return null;
  });
  base = fake.url;
  return {
    ...fake,
    close: () => {
      fake.close();
      raw.stop(true);
    },
  };
}

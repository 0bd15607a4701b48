/**
 * Small fakes for the self-update unit tests: a local GitHub-releases-style feed served by a real
 * Bun.serve on port 0 (with a log of every path asked for), SHA256SUMS and Ed25519 signatures made
 * here, crafted executable headers and a look at a folder's leftovers.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { readdirSync } from 'node:fs';
import type { BunFile } from 'bun';

export const REPO_PATH = '/repos/example/svc/releases';

export type Body = string | Uint8Array | BunFile;

export interface FakeAsset {
  name: string;
  /** What the download URL serves (absent: the asset is listed but its URL answers 404). */
  body?: Body;
  /** The size the release lists (default: the body's real length). */
  size?: number;
}

export interface FakeRelease {
  version: string;
  /** The tag it is served under (default `v<version>`). */
  tag?: string;
  assets: FakeAsset[];
}

export interface FakeFeed {
  /** `update_check_url`: …/releases/latest. */
  latestUrl: string;
  base: string;
  /** Paths asked for, in order. */
  requests: string[];
  publish(release: FakeRelease, options?: { latest?: boolean }): void;
  /** Answers wait until the returned function is called (a job caught mid-check). */
  hold(): () => void;
  stop(): void;
}

const lengthOf = (body: Body) => (typeof body === 'string' ? Buffer.byteLength(body) : body instanceof Uint8Array ? body.byteLength : body.size);

export function startFakeFeed(): FakeFeed {
  const releases = new Map<string, FakeRelease>();
  let latest: string | null = null;
  const requests: string[] = [];
  let gate: Promise<void> | null = null;

  const server = Bun.serve({
    port: 0,
    fetch: async (request) => {
      const path = new URL(request.url).pathname;
      requests.push(path);
      if (gate) await gate;
      const tag = path === `${REPO_PATH}/latest` ? latest : path.startsWith(`${REPO_PATH}/tags/`) ? decodeURIComponent(path.slice(`${REPO_PATH}/tags/`.length)) : undefined;
      if (tag !== undefined) {
        const release = tag === null ? undefined : releases.get(tag);
        if (!release) return Response.json({ message: 'Not Found' }, { status: 404 });
        const releaseTag = release.tag ?? `v${release.version}`;
        return Response.json({
          tag_name: releaseTag,
          html_url: `https://example.invalid/svc/releases/tag/v${release.version}`,
          assets: release.assets.map((a) => ({ name: a.name, size: a.size ?? (a.body === undefined ? 0 : lengthOf(a.body)), browser_download_url: `/download/${encodeURIComponent(releaseTag)}/${encodeURIComponent(a.name)}` })),
        });
      }
      const download = /^\/download\/([^/]+)\/([^/]+)$/.exec(path);
      const asset = download ? releases.get(decodeURIComponent(download[1]!))?.assets.find((a) => a.name === decodeURIComponent(download[2]!)) : undefined;
      if (!asset?.body) return new Response('not found', { status: 404 });
      return new Response(asset.body);
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    latestUrl: `${base}${REPO_PATH}/latest`,
    base,
    requests,
    publish(release, options = {}) {
      releases.set(release.tag ?? `v${release.version}`, release);
      if (options.latest) latest = release.tag ?? `v${release.version}`;
    },
    hold() {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      return () => {
        gate = null;
        release();
      };
    },
    stop: () => void server.stop(true),
  };
}

export interface SeenRequest {
  path: string;
  headers: Record<string, string>;
}

/** One test HTTP server answering with `handler`; `requests` logs each request (path and headers, copied as it arrives). */
export function serve(handler: (request: Request) => Response | Promise<Response>) {
  const requests: SeenRequest[] = [];
  const server = Bun.serve({
    port: 0,
    fetch: (request) => {
      requests.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers) });
      return handler(request);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, requests, stop: () => void server.stop(true) };
}

export function sha256(data: string | Uint8Array): string {
  return new Bun.CryptoHasher('sha256').update(data).digest('hex');
}

/** SHA256SUMS as `sha256sum` writes it. */
export function sumsOf(files: Record<string, string | Uint8Array>): string {
  return `${Object.entries(files)
    .map(([name, data]) => `${sha256(data)}  ${name}`)
    .join('\n')}\n`;
}

/** An Ed25519 key pair: the public key as `update_public_key` takes it, and a base64 signer. */
export function releaseKey() {
  const keys = generateKeyPairSync('ed25519');
  const raw = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    ...keys,
    publicKeyBase64: Buffer.from(raw).toString('base64'),
    publicKeyPem: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    sign: (data: string | Uint8Array) => sign(null, Buffer.from(data), keys.privateKey).toString('base64'),
  };
}

/** A 64-byte ELF64 header (little-endian unless `bigEndian`) for `machine`. */
export function elfHeader(machine: number, options: { bits?: 32 | 64; bigEndian?: boolean } = {}): Uint8Array {
  const header = Buffer.alloc(64);
  header.set([0x7f, 0x45, 0x4c, 0x46, options.bits === 32 ? 1 : 2, options.bigEndian ? 2 : 1, 1], 0);
  if (options.bigEndian) header.writeUInt16BE(machine, 18);
  else header.writeUInt16LE(machine, 18);
  return header;
}

/** A 64-byte Mach-O 64 header (0xfeedfacf, little-endian) for `cputype`. */
export function machOHeader(cpu: number): Uint8Array {
  const header = Buffer.alloc(64);
  header.writeUInt32LE(0xfeedfacf, 0);
  header.writeUInt32LE(cpu, 4);
  return header;
}

export const ELF_X64 = 62;
export const ELF_ARM64 = 183;
export const MACHO_X64 = 0x01000007;
export const MACHO_ARM64 = 0x0100000c;

/** An executable header for this OS but the other CPU (passes a hash check, fails the format check). */
export function otherCpuExecutable(): Uint8Array {
  const header = process.platform === 'darwin' ? machOHeader(process.arch === 'arm64' ? MACHO_X64 : MACHO_ARM64) : elfHeader(process.arch === 'arm64' ? ELF_X64 : ELF_ARM64);
  return Buffer.concat([header, Buffer.alloc(4096 - header.length, 0x90)]);
}

/** Names starting with a dot in `dir`: partial downloads and aside copies an update must never leave. */
export function dotFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('.'));
}

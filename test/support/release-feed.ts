/**
 * A local stand-in for GitHub's releases API (the one outside service self-update talks to):
 * `/repos/example/svc/releases/latest`, `/releases/tags/<tag>` and the assets, with SHA256SUMS
 * computed from the files served and SHA256SUMS.sig made with a key generated here. Each
 * release can be spoiled the ways a real download goes wrong (`fault`).
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { hostAssetName } from '../../src/core/update/platform';

export type FeedFault = 'none' | 'wrong-hash' | 'bad-signature' | 'truncated' | 'no-sums';

export interface FeedRelease {
  version: string;
  /** The file served as this machine's asset (absent: the release lists no binary). */
  binary?: string;
  fault?: FeedFault;
}

export interface ReleaseFeed {
  /** The `update_check_url` to configure. */
  latestUrl: string;
  /** The raw Ed25519 public key in base64, for `update_public_key`. */
  publicKey: string;
  /** Requests per path, in order (tests check what was and was not fetched). */
  requests: string[];
  publish(release: FeedRelease): void;
  setLatest(version: string): void;
  stop(): void;
}

export function startReleaseFeed(): ReleaseFeed {
  const keys = generateKeyPairSync('ed25519');
  const strangerKey = generateKeyPairSync('ed25519').privateKey;
  const releases = new Map<string, FeedRelease>();
  const hashes = new Map<string, string>();
  let latest = '';
  const requests: string[] = [];
  const asset = process.env.SVC_TEST_ASSET_NAME ?? hostAssetName();

  const hashOf = async (file: string) => {
    let hash = hashes.get(file);
    if (!hash) {
      const hasher = new Bun.CryptoHasher('sha256');
      for await (const chunk of Bun.file(file).stream()) hasher.update(chunk);
      hash = hasher.digest('hex');
      hashes.set(file, hash);
    }
    return hash;
  };
  const sumsOf = async (release: FeedRelease) => {
    let hash = release.binary ? await hashOf(release.binary) : '0'.repeat(64);
    if (release.fault === 'wrong-hash') hash = `${hash.slice(0, 63)}${hash.endsWith('0') ? '1' : '0'}`;
    return `${'a'.repeat(64)}  svc-other-platform\n${hash}  ${asset}\n`;
  };
  const signatureOf = (data: string, key: KeyObject) => sign(null, Buffer.from(data), key).toString('base64');

  const server: ReturnType<typeof Bun.serve> = Bun.serve({
    port: 0,
    fetch: async (request): Promise<Response> => {
      const path = new URL(request.url).pathname;
      requests.push(path);
      const base: string = `http://127.0.0.1:${server.port}`;
      const tag = path === '/repos/example/svc/releases/latest' ? latest : /^\/repos\/example\/svc\/releases\/tags\/v(.+)$/.exec(path)?.[1];
      if (tag !== undefined) {
        const release = releases.get(tag);
        if (!release) return new Response('{"message":"Not Found"}', { status: 404 });
        const size = release.binary ? Bun.file(release.binary).size : 0;
        const assets = [
          ...(release.binary ? [{ name: asset, size, browser_download_url: `${base}/download/${release.version}/${asset}` }] : []),
          ...(release.fault === 'no-sums' ? [] : [{ name: 'SHA256SUMS', size: 0, browser_download_url: `${base}/download/${release.version}/SHA256SUMS` }]),
          { name: 'SHA256SUMS.sig', size: 88, browser_download_url: `${base}/download/${release.version}/SHA256SUMS.sig` },
        ];
        return Response.json({ tag_name: `v${release.version}`, html_url: `https://example.invalid/svc/releases/tag/v${release.version}`, assets });
      }
      const download = /^\/download\/([^/]+)\/(.+)$/.exec(path);
      const release = download ? releases.get(download[1]!) : undefined;
      if (!download || !release) return new Response('not found', { status: 404 });
      const name = download[2]!;
      if (name === 'SHA256SUMS') return new Response(await sumsOf(release));
      if (name === 'SHA256SUMS.sig') return new Response(signatureOf(await sumsOf(release), release.fault === 'bad-signature' ? strangerKey : keys.privateKey));
      if (name === asset && release.binary) {
        const file = Bun.file(release.binary);
        // A connection that ends early: fewer bytes than the release lists.
        return new Response(release.fault === 'truncated' ? file.slice(0, Math.floor(file.size / 2)) : file);
      }
      return new Response('not found', { status: 404 });
    },
  });

  const raw = keys.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return {
    latestUrl: `http://127.0.0.1:${server.port}/repos/example/svc/releases/latest`,
    publicKey: Buffer.from(raw).toString('base64'),
    requests,
    publish: (release) => void releases.set(release.version, release),
    setLatest: (version) => void (latest = version),
    stop: () => void server.stop(true),
  };
}

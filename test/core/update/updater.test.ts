/**
 * updateBinary / rollbackBinary against a local fake release feed. The refusals use small fake
 * files (they fail before anything would run them); one success path downloads real svc builds
 * (at most three ~110 MB downloads in this file).
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pkg from '../../../package.json' with { type: 'json' };
import { versionOfBinary } from '../../../src/core/update/binary-check';
import { previousOf } from '../../../src/core/update/install';
import { rollbackBinary, updateBinary, UpdateError, type BinaryUpdateSource, type UpdateStage } from '../../../src/core/update/updater';
import { svcBinary, svcBinaryAs } from '../../support/binary';
import { tempDir } from '../../support/controller';
import { dotFiles, otherCpuExecutable, releaseKey, REPO_PATH, sha256, startFakeFeed, sumsOf, type FakeAsset, type FakeFeed } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

const [MAJOR, MINOR, PATCH] = pkg.version.split('.').map(Number) as [number, number, number];
const CURRENT = pkg.version;
const NEXT = `${MAJOR}.${MINOR}.${PATCH + 1}`;
const OLDER = PATCH > 0 ? `${MAJOR}.${MINOR}.${PATCH - 1}` : `${MAJOR}.${MINOR - 1}.0`;
const ASSET = 'svc-test-asset';
const OLD_BYTES = 'the current svc binary\n'.repeat(100);
const key = releaseKey();
const stranger = releaseKey();

function setup() {
  const feed = startFakeFeed();
  cleanups.push(feed.stop);
  const temp = tempDir('svc-updater-');
  cleanups.push(temp.remove);
  const bin = join(temp.dir, 'bin');
  mkdirSync(bin);
  const binary = join(bin, 'svc');
  writeFileSync(binary, OLD_BYTES, { mode: 0o755 });
  const stages: UpdateStage[] = [];
  const source = (extra: Partial<BinaryUpdateSource> = {}): BinaryUpdateSource => ({ feedUrl: feed.latestUrl, publicKey: '', currentVersion: CURRENT, binary, assetName: ASSET, ...extra });
  const downloads = () => feed.requests.filter((path) => path.startsWith('/download/'));
  /** The binary is byte-identical, nothing was kept or left beside it. */
  const unchanged = () => {
    expect(readFileSync(binary, 'utf8')).toBe(OLD_BYTES);
    expect(existsSync(previousOf(binary))).toBe(false);
    expect(dotFiles(bin)).toEqual([]);
  };
  return { feed, bin, binary, stages, source, downloads, unchanged, onStage: (stage: UpdateStage) => void stages.push(stage) };
}

/** A release: the asset for this machine, SHA256SUMS over it (or `sums`), and a signature by `signer` (or none). */
function publish(feed: FakeFeed, version: string, options: { binary?: Uint8Array | string; size?: number; sums?: string | null; signer?: typeof key | null; signature?: string; latest?: boolean } = {}) {
  const binary = options.binary ?? 'a small fake binary';
  const sums = options.sums === undefined ? sumsOf({ 'svc-other-platform': 'other', [ASSET]: binary }) : options.sums;
  const assets: FakeAsset[] = [{ name: ASSET, body: binary, size: options.size }];
  if (sums !== null) assets.push({ name: 'SHA256SUMS', body: sums });
  const signature = options.signature ?? (options.signer && sums !== null ? options.signer.sign(sums) : undefined);
  if (signature !== undefined) assets.push({ name: 'SHA256SUMS.sig', body: signature });
  feed.publish({ version, assets }, { latest: options.latest ?? true });
}

async function refused(promise: Promise<unknown>): Promise<UpdateError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpdateError);
  return error as UpdateError;
}

describe('updateBinary refuses, and leaves the binary as it was', () => {
  test('no asset for this machine', async () => {
    const s = setup();
    publish(s.feed, NEXT);
    const error = await refused(updateBinary(s.source({ assetName: 'svc-plan9-mips' }), { onStage: s.onStage }));
    expect(error.message).toBe(`release ${NEXT} has no svc-plan9-mips for this machine`);
    expect(s.downloads()).toEqual([]);
    expect(s.stages).toEqual(['checking']);
    s.unchanged();
  });

  test('no SHA256SUMS', async () => {
    const s = setup();
    publish(s.feed, NEXT, { sums: null });
    expect((await refused(updateBinary(s.source(), {}))).message).toBe(`release ${NEXT} has no SHA256SUMS; refusing a binary that cannot be checked`);
    expect(s.downloads()).toEqual([]);
    s.unchanged();
  });

  test('SHA256SUMS without the asset', async () => {
    const s = setup();
    publish(s.feed, NEXT, { sums: sumsOf({ 'svc-linux-riscv64': 'x' }) });
    expect((await refused(updateBinary(s.source(), {}))).message).toBe(`SHA256SUMS of release ${NEXT} lists no ${ASSET}`);
    expect(s.downloads()).toEqual([`/download/v${NEXT}/SHA256SUMS`]);
    s.unchanged();
  });

  test('a damaged SHA256SUMS', async () => {
    const s = setup();
    publish(s.feed, NEXT, { sums: `${sha256('a small fake binary')}  ${ASSET}\nnot a checksum line\n` });
    expect((await refused(updateBinary(s.source(), {}))).message).toBe('SHA256SUMS line 2 is not "<sha256>  <file>"');
    expect(s.downloads()).toEqual([`/download/v${NEXT}/SHA256SUMS`]);
    s.unchanged();
  });

  test('a public key is set but the release has no SHA256SUMS.sig', async () => {
    const s = setup();
    publish(s.feed, NEXT, { signer: null });
    expect((await refused(updateBinary(s.source({ publicKey: key.publicKeyBase64 }), {}))).message).toBe(`release ${NEXT} has no SHA256SUMS.sig, and update_public_key asks for one`);
    expect(s.downloads()).toEqual([`/download/v${NEXT}/SHA256SUMS`]);
    s.unchanged();
  });

  test.each([
    ['signed by another key', () => ({ signer: stranger })],
    ['a signature over other checksums', () => ({ signature: key.sign(sumsOf({ [ASSET]: 'something else' })) })],
    ['a signature file that is no signature', () => ({ signature: 'hello' })],
  ])('a bad signature (%s): the binary is never requested', async (_, spoil) => {
    const s = setup();
    publish(s.feed, NEXT, spoil());
    const error = await refused(updateBinary(s.source({ publicKey: key.publicKeyPem }), { onStage: s.onStage }));
    expect(error.message).toBe(`the signature over SHA256SUMS of release ${NEXT} does not verify with update_public_key: refusing the update`);
    expect(s.downloads()).toEqual([`/download/v${NEXT}/SHA256SUMS`, `/download/v${NEXT}/SHA256SUMS.sig`]);
    expect(s.stages).toEqual(['checking']);
    s.unchanged();
  });

  test('a public key that is not one: refused before the feed is asked', async () => {
    const s = setup();
    publish(s.feed, NEXT, { signer: key });
    const error = await refused(updateBinary(s.source({ publicKey: 'c29tZXRoaW5n' }), {}));
    expect(error.message).toMatch(/^update_public_key is neither a PEM public key nor a base64 Ed25519 key of 32 bytes/);
    expect(s.feed.requests).toEqual([]);
    s.unchanged();
  });

  test('a wrong hash: downloaded, compared, removed', async () => {
    const s = setup();
    publish(s.feed, NEXT, { sums: sumsOf({ [ASSET]: 'what the release should have been' }) });
    const error = await refused(updateBinary(s.source(), { onStage: s.onStage }));
    expect(error.message).toBe(`the SHA-256 of the downloaded ${ASSET} is ${sha256('a small fake binary')}, but SHA256SUMS says ${sha256('what the release should have been')}: refusing it`);
    expect(s.downloads()).toEqual([`/download/v${NEXT}/SHA256SUMS`, `/download/v${NEXT}/${ASSET}`]);
    expect(s.stages).toEqual(['checking', 'downloading']);
    s.unchanged();
  });

  test('a truncated download', async () => {
    const s = setup();
    publish(s.feed, NEXT, { size: 1000 });
    expect((await refused(updateBinary(s.source(), {}))).message).toBe(`${ASSET}: truncated download, ${'a small fake binary'.length} of 1000 bytes`);
    s.unchanged();
  });

  test('more bytes than the release lists', async () => {
    const s = setup();
    publish(s.feed, NEXT, { size: 5 });
    expect((await refused(updateBinary(s.source(), {}))).message).toBe(`${ASSET}: more than the 5 bytes the release lists`);
    s.unchanged();
  });

  test('an asset URL that answers 404', async () => {
    const s = setup();
    s.feed.publish({ version: NEXT, assets: [{ name: ASSET, size: 100 }, { name: 'SHA256SUMS', body: sumsOf({ [ASSET]: 'x' }) }] }, { latest: true });
    expect((await refused(updateBinary(s.source(), {}))).message).toMatch(new RegExp(`^${ASSET}: http://\\S+/download/v${NEXT}/${ASSET} answered 404 Not Found$`));
    s.unchanged();
  });

  test('an executable for the other CPU passes the hash and fails the executable check', async () => {
    const s = setup();
    const foreign = otherCpuExecutable();
    publish(s.feed, NEXT, { binary: foreign, signer: key });
    const error = await refused(updateBinary(s.source({ publicKey: key.publicKeyBase64 }), { onStage: s.onStage }));
    expect(error.message).toMatch(new RegExp(`^the downloaded ${ASSET} failed its check: the file is a (Linux|macOS) executable for another CPU.*; this machine needs ${process.platform}-${process.arch}$`));
    expect(s.stages).toEqual(['checking', 'downloading', 'verifying']);
    s.unchanged();
  });

  test('a file that is not an executable at all (a script) fails the executable check and is never run', async () => {
    const s = setup();
    const marker = join(s.bin, '..', 'script-ran');
    publish(s.feed, NEXT, { binary: `#!/bin/sh\ntouch ${marker}\necho "svc ${NEXT}"\n` });
    expect((await refused(updateBinary(s.source(), {}))).message).toMatch(new RegExp(`^the downloaded ${ASSET} failed its check: the file is not a \\w+ executable \\(not an executable at all\\)`));
    expect(existsSync(marker)).toBe(false);
    s.unchanged();
  });

  test('a pinned version the feed does not have', async () => {
    const s = setup();
    publish(s.feed, NEXT);
    expect((await refused(updateBinary(s.source(), { version: '9.9.9' }))).message).toBe('there is no release 9.9.9 (tag v9.9.9 or 9.9.9)');
    s.unchanged();
  });

  // Root ignores a folder's mode (access(W_OK) succeeds), so this refusal cannot be provoked as root.
  test.skipIf(process.getuid?.() === 0)('a binary folder the process cannot write to: refused before downloading', async () => {
    const s = setup();
    publish(s.feed, NEXT);
    chmodSync(s.bin, 0o555);
    cleanups.unshift(() => chmodSync(s.bin, 0o755));
    const error = await refused(updateBinary(s.source(), {}));
    expect(error.message).toBe(`cannot write to ${s.bin}, the folder of the svc binary: the user svc runs as needs write access there to update it (see README, Updates)`);
    expect(s.downloads()).toEqual([`/download/v${NEXT}/SHA256SUMS`]);
    chmodSync(s.bin, 0o755);
    s.unchanged();
  });
});

describe('updateBinary: nothing newer', () => {
  test.each([
    ['the latest is the running version', CURRENT, undefined],
    ['the latest is older than the running version', OLDER, undefined],
    ['the pinned version is the running version', CURRENT, CURRENT],
  ])('%s: up-to-date, nothing downloaded', async (_, published, pinned) => {
    const s = setup();
    publish(s.feed, published);
    const result = await updateBinary(s.source(), { version: pinned, onStage: s.onStage });
    expect(result).toEqual({ outcome: 'up-to-date', currentVersion: CURRENT, latestVersion: published });
    expect(s.downloads()).toEqual([]);
    expect(s.stages).toEqual(['checking']);
    s.unchanged();
  });

  test('an older pinned version is a downgrade on purpose: it is fetched, not called up to date', async () => {
    const s = setup();
    publish(s.feed, NEXT);
    publish(s.feed, OLDER, { latest: false, sums: sumsOf({ [ASSET]: 'a different binary' }) });
    const error = await refused(updateBinary(s.source(), { version: OLDER }));
    expect(error.message).toMatch(/^the SHA-256 of the downloaded/);
    expect(s.feed.requests).toEqual([`${REPO_PATH}/tags/v${OLDER}`, `/download/v${OLDER}/SHA256SUMS`, `/download/v${OLDER}/${ASSET}`]);
    s.unchanged();
  });
});

describe('rollbackBinary refusals', () => {
  test('without a .previous: nothing to restore', async () => {
    const s = setup();
    const error = await refused(rollbackBinary({ binary: s.binary, currentVersion: CURRENT }));
    expect(error.message).toStartWith(`${previousOf(s.binary)} cannot be restored: `);
    expect(error.message).toContain('ENOENT');
    s.unchanged();
  });

  test('a .previous that is not an executable is not put back', async () => {
    const s = setup();
    writeFileSync(previousOf(s.binary), 'not a binary', { mode: 0o755 });
    const error = await refused(rollbackBinary({ binary: s.binary, currentVersion: CURRENT }));
    expect(error.message).toMatch(new RegExp(`^${previousOf(s.binary)} cannot be restored: the file is only 12 bytes: not an executable at all$`));
    expect(readFileSync(s.binary, 'utf8')).toBe(OLD_BYTES);
    expect(readFileSync(previousOf(s.binary), 'utf8')).toBe('not a binary');
    expect(dotFiles(s.bin)).toEqual([]);
  });
});

describe('with real svc builds', () => {
  let current: string;
  let next: string;
  let nextHash: string;
  let feed: FakeFeed;
  let bin: string;
  let binary: string;
  const afterAllCleanups: (() => void)[] = [];
  afterAll(() => afterAllCleanups.splice(0).forEach((cleanup) => cleanup()));

  beforeAll(async () => {
    [current, next] = await Promise.all([svcBinary(), svcBinaryAs(NEXT)]);
    const hasher = new Bun.CryptoHasher('sha256');
    for await (const chunk of Bun.file(next).stream()) hasher.update(chunk);
    nextHash = hasher.digest('hex');
    feed = startFakeFeed();
    const sums = `${'0'.repeat(64)}  svc-other-platform\n${nextHash}  ${ASSET}\n`;
    const assets = (): FakeAsset[] => [
      { name: ASSET, body: Bun.file(next) },
      { name: 'SHA256SUMS', body: sums },
      { name: 'SHA256SUMS.sig', body: key.sign(sums) },
    ];
    feed.publish({ version: NEXT, assets: assets() }, { latest: true });
    // A release whose binary says it is another version than its tag.
    feed.publish({ version: `${MAJOR}.${MINOR}.${PATCH + 2}`, assets: assets() });
    const temp = tempDir('svc-updater-real-');
    afterAllCleanups.push(temp.remove, feed.stop);
    bin = join(temp.dir, 'bin');
    mkdirSync(bin);
    binary = join(bin, 'svc');
    try {
      linkSync(current, binary);
    } catch {
      copyFileSync(current, binary);
    }
  }, 180_000);

  const source = (): BinaryUpdateSource => ({ feedUrl: feed.latestUrl, publicKey: key.publicKeyBase64, currentVersion: CURRENT, binary, assetName: ASSET });
  const identity = () => {
    const stat = statSync(binary);
    return [stat.ino, stat.size, stat.mtimeMs];
  };

  test('the binaries are what they claim', async () => {
    expect(await versionOfBinary(binary)).toBe(CURRENT);
    expect(await versionOfBinary(next)).toBe(NEXT);
  }, 60_000);

  test('a binary that reports another version than its release is refused and removed', async () => {
    const before = identity();
    const wrong = `${MAJOR}.${MINOR}.${PATCH + 2}`;
    const error = await refused(updateBinary(source(), { version: wrong }));
    expect(error.message).toBe(`the downloaded binary says it is ${NEXT}, but the release is ${wrong}`);
    expect(identity()).toEqual(before);
    expect(dotFiles(bin)).toEqual([]);
    expect(existsSync(previousOf(binary))).toBe(false);
  }, 120_000);

  test('dry run: downloaded, signature, hash and --version checked, then removed; nothing replaced', async () => {
    const before = identity();
    const stages: UpdateStage[] = [];
    const result = await updateBinary(source(), { dryRun: true, onStage: (stage) => void stages.push(stage) });
    expect(result).toMatchObject({ outcome: 'checked', fromVersion: CURRENT, toVersion: NEXT, updateType: 'PATCH' });
    expect(stages).toEqual(['checking', 'downloading', 'verifying']);
    expect(identity()).toEqual(before);
    expect(dotFiles(bin)).toEqual([]);
    expect(existsSync(previousOf(binary))).toBe(false);
  }, 120_000);

  test('install: the binary now reports the new version, .previous holds the old one', async () => {
    const [oldInode] = identity();
    const stages: UpdateStage[] = [];
    const result = await updateBinary(source(), { onStage: (stage) => void stages.push(stage) });
    expect(result).toMatchObject({ outcome: 'installed', fromVersion: CURRENT, toVersion: NEXT, updateType: 'PATCH' });
    if (result.outcome === 'installed') expect(result.release.version).toBe(NEXT);
    expect(stages).toEqual(['checking', 'downloading', 'verifying', 'installing']);
    expect(await versionOfBinary(binary)).toBe(NEXT);
    expect(statSync(binary).mode & 0o777).toBe(0o755);
    expect(statSync(previousOf(binary)).ino).toBe(oldInode!);
    expect(await versionOfBinary(previousOf(binary))).toBe(CURRENT);
    expect(dotFiles(bin)).toEqual([]);
    // The feed now names the installed version: nothing more to do.
    expect(await updateBinary({ ...source(), currentVersion: NEXT }, {})).toEqual({ outcome: 'up-to-date', currentVersion: NEXT, latestVersion: NEXT });
  }, 120_000);

  test('rollbackBinary puts the previous binary back, and the replaced one becomes .previous', async () => {
    expect(await rollbackBinary({ binary, currentVersion: NEXT })).toEqual({ fromVersion: NEXT, toVersion: CURRENT });
    expect(await versionOfBinary(binary)).toBe(CURRENT);
    expect(await versionOfBinary(previousOf(binary))).toBe(NEXT);
    expect(dotFiles(bin)).toEqual([]);
    // Only the three real downloads of this file.
    expect(feed.requests.filter((path) => path.endsWith(`/${ASSET}`))).toHaveLength(3);
  }, 60_000);
});

import { constants } from 'node:fs';
import { access, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { updateTypeOf, type UpdateType } from '../info/update-check';
import { versionOfBinary } from './binary-check';
import { parseChecksums } from './checksums';
import { downloadBeside, fetchSmallAsset } from './download';
import { installBinary, previousOf, restorePrevious } from './install';
import { hostAssetName } from './platform';
import { fetchRelease, type Release } from './release';
import { parsePublicKey, signatureValid } from './signature';

export const CHECKSUMS_ASSET = 'SHA256SUMS';
export const SIGNATURE_ASSET = 'SHA256SUMS.sig';

/** What an update is checked against and what it replaces. */
export interface BinaryUpdateSource {
  /** `[controller] update_check_url`. */
  feedUrl: string;
  /** `[controller] update_public_key`; blank: SHA256SUMS is trusted as served. */
  publicKey: string;
  currentVersion: string;
  /** The running executable (RUNNING_BINARY). */
  binary: string;
  fetch?: typeof fetch;
  /** This machine's release asset (default hostAssetName()). */
  assetName?: string;
}

export type UpdateStage = 'checking' | 'downloading' | 'verifying' | 'installing';

export type BinaryUpdateOutcome =
  | { outcome: 'up-to-date'; currentVersion: string; latestVersion: string }
  | { outcome: 'checked' | 'installed'; fromVersion: string; toVersion: string; updateType: UpdateType | null; release: Release };

/** An update refused or failed; the old binary is untouched and `message` says why. */
export class UpdateError extends Error {}

/**
 * One update of the svc binary: the release (latest, or `version`), its SHA256SUMS (and,
 * with a public key, the Ed25519 signature over it, checked before anything is written), the
 * asset for this machine streamed beside the binary, then its size, hash, executable format and
 * `--version` checked. Only then is it renamed over the binary (the old kept as
 * `<binary>.previous`); with `dryRun` it is removed instead. Restarting is the caller's part.
 */
export async function updateBinary(source: BinaryUpdateSource, request: { version?: string; dryRun?: boolean; onStage?: (stage: UpdateStage) => void }): Promise<BinaryUpdateOutcome> {
  const userAgent = `svc/${source.currentVersion}`;
  const stage = request.onStage ?? (() => undefined);
  stage('checking');
  const key = source.publicKey.trim() ? guard(() => parsePublicKey(source.publicKey)) : null;
  const release = await guardAsync(() => fetchRelease({ feedUrl: source.feedUrl, version: request.version, userAgent, fetch: source.fetch }));
  const updateType = updateTypeOf(source.currentVersion, release.version);
  // Without a pinned version only a newer release is installed; a pinned one may be older (a downgrade on purpose).
  if (release.version === source.currentVersion || (request.version === undefined && updateType === null)) {
    return { outcome: 'up-to-date', currentVersion: source.currentVersion, latestVersion: release.version };
  }
  const assetName = source.assetName ?? hostAssetName();
  const asset = release.assets.find((a) => a.name === assetName);
  if (!asset) throw new UpdateError(`release ${release.version} has no ${assetName} for this machine`);
  const sumsAsset = release.assets.find((a) => a.name === CHECKSUMS_ASSET);
  if (!sumsAsset) throw new UpdateError(`release ${release.version} has no ${CHECKSUMS_ASSET}; refusing a binary that cannot be checked`);
  const sums = await guardAsync(() => fetchSmallAsset(sumsAsset, { userAgent, fetch: source.fetch }));
  if (key) {
    const signatureAsset = release.assets.find((a) => a.name === SIGNATURE_ASSET);
    if (!signatureAsset) throw new UpdateError(`release ${release.version} has no ${SIGNATURE_ASSET}, and update_public_key asks for one`);
    const signature = await guardAsync(() => fetchSmallAsset(signatureAsset, { userAgent, fetch: source.fetch }));
    if (!signatureValid(sums, signature, key)) throw new UpdateError(`the signature over ${CHECKSUMS_ASSET} of release ${release.version} does not verify with update_public_key: refusing the update`);
  }
  const expected = guard(() => parseChecksums(new TextDecoder().decode(sums))).get(assetName);
  if (!expected) throw new UpdateError(`${CHECKSUMS_ASSET} of release ${release.version} lists no ${assetName}`);
  await access(dirname(source.binary), constants.W_OK).catch(() => {
    throw new UpdateError(`cannot write to ${dirname(source.binary)}, the folder of the svc binary: the user svc runs as needs write access there to update it (see README, Updates)`);
  });

  stage('downloading');
  const download = await guardAsync(() => downloadBeside(source.binary, asset, { userAgent, fetch: source.fetch }));
  try {
    if (download.sha256 !== expected) throw new UpdateError(`the SHA-256 of the downloaded ${assetName} is ${download.sha256}, but ${CHECKSUMS_ASSET} says ${expected}: refusing it`);
    stage('verifying');
    const version = await guardAsync(() => versionOfBinary(download.path), (message) => `the downloaded ${assetName} failed its check: ${message}`);
    if (version !== release.version) throw new UpdateError(`the downloaded binary says it is ${version}, but the release is ${release.version}`);
    if (request.dryRun) {
      await rm(download.path, { force: true });
      return { outcome: 'checked', fromVersion: source.currentVersion, toVersion: release.version, updateType, release };
    }
    stage('installing');
    guard(() => installBinary(source.binary, download.path));
    return { outcome: 'installed', fromVersion: source.currentVersion, toVersion: release.version, updateType, release };
  } catch (error) {
    await rm(download.path, { force: true });
    throw error;
  }
}

/** Puts `<binary>.previous` back (after checking it runs); returns the versions swapped. */
export async function rollbackBinary(source: Pick<BinaryUpdateSource, 'binary' | 'currentVersion'>): Promise<{ fromVersion: string; toVersion: string }> {
  const previous = previousOf(source.binary);
  const version = await guardAsync(() => versionOfBinary(previous), (message) => `${previous} cannot be restored: ${message}`);
  await access(dirname(source.binary), constants.W_OK).catch(() => {
    throw new UpdateError(`cannot write to ${dirname(source.binary)}, the folder of the svc binary`);
  });
  guard(() => restorePrevious(source.binary));
  return { fromVersion: source.currentVersion, toVersion: version };
}

function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    throw error instanceof UpdateError ? error : new UpdateError((error as Error).message);
  }
}

async function guardAsync<T>(work: () => Promise<T>, wrap: (message: string) => string = (m) => m): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof UpdateError ? error : new UpdateError(wrap((error as Error).message));
  }
}

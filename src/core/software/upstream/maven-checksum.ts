import { UpstreamError, type UpstreamHttp } from './http';
import type { Checksum, ChecksumAlgorithm } from './model';

const HEX_DIGITS: Record<ChecksumAlgorithm, number> = { sha512: 128, sha256: 64, sha1: 40, md5: 32 };

/** Statuses a maven answers for a sidecar it does not have (some storage backends say 403). */
const NOT_PUBLISHED = new Set([403, 404, 410]);

/**
 * The checksum a maven publishes next to the file at `url` (`<url>.sha256`, `<url>.sha1`, …):
 * the first of `algorithms` (strongest first) it has. A sidecar it does not have is skipped;
 * any other failure is the maven's (UpstreamError). Null when it publishes none of them: the
 * download is then unverified, and its log line says so. A sidecar holds the hex digest,
 * sometimes followed by the file name (`sha256sum` style).
 */
export async function mavenChecksum(http: UpstreamHttp, upstream: string, url: string, algorithms: readonly ChecksumAlgorithm[]): Promise<Checksum | null> {
  for (const algorithm of algorithms) {
    const sidecar = `${url}.${algorithm}`;
    let text: string;
    try {
      text = await http.text(upstream, sidecar);
    } catch (error) {
      if (error instanceof UpstreamError && error.status !== null && NOT_PUBLISHED.has(error.status)) continue;
      throw error;
    }
    const hex = text.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    if (hex.length !== HEX_DIGITS[algorithm] || !/^[0-9a-f]+$/.test(hex)) {
      throw new UpstreamError(upstream, sidecar, `answered something that is not a ${algorithm.toUpperCase()} checksum`, null, true);
    }
    return { algorithm, hex };
  }
  return null;
}

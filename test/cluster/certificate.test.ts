/** The cluster's self-signed certificate on disk: written through the durable atomic writer, key private. */
import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateCertificate } from '../../src/cluster/certificate';
import { tempDir } from '../support/controller';

const tmp = tempDir('svc-cluster-cert-');
afterAll(() => tmp.remove());

describe('loadOrCreateCertificate', () => {
  test('first start writes key 0600 and certificate 0644 whatever the umask, no temp file left; the next start reuses them', async () => {
    const dir = join(tmp.dir, 'tls');
    const previous = process.umask(0o077);
    let first;
    try {
      first = await loadOrCreateCertificate(dir, ['localhost', '127.0.0.1']);
    } finally {
      process.umask(previous);
    }
    expect(first.created).toBe(true);
    const files = readdirSync(dir).sort();
    expect(files.length).toBe(2);
    expect(files.every((f) => !f.includes('tmp'))).toBe(true);
    const modes = files.map((f) => statSync(join(dir, f)).mode & 0o777).sort();
    expect(modes).toEqual([0o600, 0o644]);
    const again = await loadOrCreateCertificate(dir, ['localhost']);
    expect(again.created).toBe(false);
    expect(again.certificate.fingerprint).toBe(first.certificate.fingerprint);
    // A name it does not cover: a new one, written the same way; the old pair kept beside it.
    const oldKey = readFileSync(join(dir, 'cluster.key'));
    const oldCert = readFileSync(join(dir, 'cluster.crt'));
    const renewed = await loadOrCreateCertificate(dir, ['localhost', 'play.example.net'], { now: new Date('2026-03-04T05:06:07.890Z') });
    expect(renewed).toMatchObject({ created: true });
    expect(renewed.certificate.fingerprint).not.toBe(first.certificate.fingerprint);
    expect(renewed.reason).toContain('cluster.key.replaced-20260304T050607Z and cluster.crt.replaced-20260304T050607Z');
    expect(readdirSync(dir).sort()).toEqual([...files, 'cluster.crt.replaced-20260304T050607Z', 'cluster.key.replaced-20260304T050607Z'].sort());
    expect(readFileSync(join(dir, 'cluster.key.replaced-20260304T050607Z'))).toEqual(oldKey);
    expect(readFileSync(join(dir, 'cluster.crt.replaced-20260304T050607Z'))).toEqual(oldCert);
    expect(statSync(join(dir, 'cluster.key.replaced-20260304T050607Z')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'cluster.key'))).not.toEqual(oldKey);
    // A second renewal in the same second never overwrites the first one kept.
    await loadOrCreateCertificate(dir, ['localhost', 'play2.example.net'], { now: new Date('2026-03-04T05:06:07.990Z') });
    expect(readdirSync(dir).filter((f) => f.startsWith('cluster.key.replaced-')).sort()).toEqual(['cluster.key.replaced-20260304T050607Z', 'cluster.key.replaced-20260304T050607Z-2']);
    expect(readFileSync(join(dir, 'cluster.key.replaced-20260304T050607Z'))).toEqual(oldKey);
  });
});

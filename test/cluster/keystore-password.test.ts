/**
 * `[cluster] keystore_password`: the cluster key is kept as encrypted PKCS#8 and read back with
 * it; a wrong or missing password stops the start (exit 2) and never replaces the key; setting,
 * changing and clearing the password convert the file in place and keep the key (the same
 * certificate, so agents keep their pin); the password appears in no log, error or GET
 * /api/config. A real controller serves TLS with the encrypted key to a client that trusts only
 * the pinned certificate.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadOrCreateCertificate } from '../../src/cluster/certificate';
import { ConfigError } from '../../src/config/load';
import { readJson, startController, tempDir } from '../support/controller';

const tmp = tempDir('svc-keystore-');
afterAll(() => tmp.remove());

const PASSWORD = 'Keystore-Password-7f3a9c';
const OTHER = 'Another-Password-1b2c3d';
const SANS = ['localhost', '127.0.0.1'];
const ENCRYPTED = '-----BEGIN ENCRYPTED PRIVATE KEY-----';
const PLAIN = '-----BEGIN PRIVATE KEY-----';

const keyFile = (dir: string) => join(dir, 'cluster.key');
const certFile = (dir: string) => join(dir, 'cluster.crt');
const mode = (file: string) => statSync(file).mode & 0o777;
const spki = (keyPem: string) => createPublicKey(createPrivateKey(keyPem)).export({ format: 'der', type: 'spki' }).toString('base64');
const noTempFiles = (dir: string) => expect(readdirSync(dir).sort()).toEqual(['cluster.crt', 'cluster.key']);

async function refused(run: () => Promise<unknown>): Promise<ConfigError> {
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  const message = (error as Error).message;
  for (const secret of [PASSWORD, OTHER]) expect(message).not.toContain(secret);
  return error as ConfigError;
}

describe('loadOrCreateCertificate with a keystore password', () => {
  test('first start writes the key encrypted (0600) and hands TLS the key; the next start reads it back', async () => {
    const dir = join(tmp.dir, 'first');
    const first = await loadOrCreateCertificate(dir, SANS, { password: PASSWORD });
    expect(first.created).toBe(true);
    const onDisk = readFileSync(keyFile(dir), 'utf8');
    expect(onDisk.startsWith(ENCRYPTED)).toBe(true);
    expect(onDisk).not.toContain(PLAIN);
    expect(mode(keyFile(dir))).toBe(0o600);
    noTempFiles(dir);
    // In memory the key is plain PKCS#8: what the TLS server is given.
    expect(first.certificate.keyPem.startsWith(PLAIN)).toBe(true);
    const again = await loadOrCreateCertificate(dir, SANS, { password: PASSWORD });
    expect(again).toMatchObject({ created: false });
    expect(again.converted).toBeUndefined();
    expect(again.certificate.fingerprint).toBe(first.certificate.fingerprint);
    expect(spki(again.certificate.keyPem)).toBe(spki(first.certificate.keyPem));
    expect(readFileSync(keyFile(dir), 'utf8')).toBe(onDisk);
  });

  test('a wrong or missing password is refused, names the setting, never the password, and leaves both files as they were', async () => {
    const dir = join(tmp.dir, 'wrong');
    await loadOrCreateCertificate(dir, SANS, { password: PASSWORD });
    const key = readFileSync(keyFile(dir));
    const cert = readFileSync(certFile(dir));
    const wrong = await refused(() => loadOrCreateCertificate(dir, SANS, { password: OTHER }));
    expect(wrong.message).toMatch(/cluster\.key cannot be decrypted with \[cluster\] keystore_password: set the password the key was encrypted with/);
    const missing = await refused(() => loadOrCreateCertificate(dir, SANS, {}));
    expect(missing.message).toMatch(/cluster\.key is encrypted and \[cluster\] keystore_password is blank/);
    // Not even a certificate that needs renewing (a new name) replaces a key it cannot open.
    await refused(() => loadOrCreateCertificate(dir, [...SANS, 'new.example'], { password: OTHER }));
    await refused(() => loadOrCreateCertificate(dir, SANS, { password: OTHER, previousPassword: `${OTHER}x` }));
    expect(readFileSync(keyFile(dir))).toEqual(key);
    expect(readFileSync(certFile(dir))).toEqual(cert);
    noTempFiles(dir);
  });

  test('plain → encrypted → re-encrypted → plain: converted once each, the same key and certificate throughout', async () => {
    const dir = join(tmp.dir, 'convert');
    const plain = await loadOrCreateCertificate(dir, SANS);
    expect(readFileSync(keyFile(dir), 'utf8').startsWith(PLAIN)).toBe(true);
    const fingerprint = plain.certificate.fingerprint;
    const publicKey = spki(plain.certificate.keyPem);
    const cert = readFileSync(certFile(dir), 'utf8');
    const same = (loaded: Awaited<ReturnType<typeof loadOrCreateCertificate>>) => {
      expect(loaded.created).toBe(false);
      expect(loaded.certificate.fingerprint).toBe(fingerprint);
      expect(spki(loaded.certificate.keyPem)).toBe(publicKey);
      expect(readFileSync(certFile(dir), 'utf8')).toBe(cert);
      expect(mode(keyFile(dir))).toBe(0o600);
      noTempFiles(dir);
    };

    // Setting a password encrypts the existing key.
    const encrypted = await loadOrCreateCertificate(dir, SANS, { password: PASSWORD });
    expect(encrypted.converted).toBe('encrypted');
    same(encrypted);
    expect(readFileSync(keyFile(dir), 'utf8').startsWith(ENCRYPTED)).toBe(true);
    expect(createPrivateKey({ key: readFileSync(keyFile(dir), 'utf8'), format: 'pem', passphrase: PASSWORD }).asymmetricKeyType).toBe('ec');
    expect((await loadOrCreateCertificate(dir, SANS, { password: PASSWORD })).converted).toBeUndefined();

    // Changing it: the old one as the previous password, for one start.
    const rotated = await loadOrCreateCertificate(dir, SANS, { password: OTHER, previousPassword: PASSWORD });
    expect(rotated.converted).toBe('re-encrypted');
    same(rotated);
    await refused(() => loadOrCreateCertificate(dir, SANS, { password: PASSWORD }));
    const settled = await loadOrCreateCertificate(dir, SANS, { password: OTHER, previousPassword: PASSWORD });
    expect(settled.converted).toBeUndefined();
    expect(settled.previousUnused).toBe(true);

    // Clearing it: the key is written back plain.
    const cleared = await loadOrCreateCertificate(dir, SANS, { password: '', previousPassword: OTHER });
    expect(cleared.converted).toBe('decrypted');
    same(cleared);
    expect(readFileSync(keyFile(dir), 'utf8').startsWith(PLAIN)).toBe(true);
    expect((await loadOrCreateCertificate(dir, SANS)).converted).toBeUndefined();
  });

  test('a renewal under a password writes the new key encrypted', async () => {
    const dir = join(tmp.dir, 'renew');
    const first = await loadOrCreateCertificate(dir, SANS, { password: PASSWORD });
    const renewed = await loadOrCreateCertificate(dir, [...SANS, 'play.example.net'], { password: PASSWORD });
    expect(renewed).toMatchObject({ created: true });
    expect(renewed.certificate.fingerprint).not.toBe(first.certificate.fingerprint);
    expect(readFileSync(keyFile(dir), 'utf8').startsWith(ENCRYPTED)).toBe(true);
    expect((await loadOrCreateCertificate(dir, [...SANS, 'play.example.net'], { password: PASSWORD })).certificate.fingerprint).toBe(renewed.certificate.fingerprint);
  });
});

/** Opens a WebSocket to the cluster port trusting only `ca`; resolves 'open' or the failure. */
function connectPinned(wsUrl: string, ca: string): Promise<'open' | 'failed'> {
  return new Promise((resolve) => {
    const socket = new WebSocket(wsUrl, { tls: { ca } } as unknown as ConstructorParameters<typeof WebSocket>[1]);
    const timer = setTimeout(() => {
      socket.close();
      resolve('failed');
    }, 5000);
    socket.addEventListener('open', () => {
      clearTimeout(timer);
      socket.close();
      resolve('open');
    });
    socket.addEventListener('error', () => {
      clearTimeout(timer);
      resolve('failed');
    });
  });
}

describe('a controller with keystore_password', () => {
  test('serves the cluster TLS with the encrypted key to a pinned client; the password is in no log and not in GET /api/config', async () => {
    const c = await startController({ clusterToml: `enabled = true\nagent_port = 0\npublic_host = "127.0.0.1"\nkeystore_password = "${PASSWORD}"` });
    let stopped = false;
    try {
      const keystore = join(c.dir, 'data', 'cluster');
      expect(readFileSync(keyFile(keystore), 'utf8').startsWith(ENCRYPTED)).toBe(true);
      const bootstrap = await readJson(await c.api('/api/cluster/bootstrap', { token: c.cluster }));
      expect(bootstrap.wsUrl).toStartWith('wss://');
      expect(bootstrap.fingerprint).toBe(c.controller.kernel.cluster!.certificate!.fingerprint);
      // An agent-style client: the pinned certificate is its only trust anchor.
      expect(await connectPinned(bootstrap.wsUrl, bootstrap.certPem)).toBe('open');
      const stranger = (await loadOrCreateCertificate(join(tmp.dir, 'stranger'), SANS)).certificate.certPem;
      expect(await connectPinned(bootstrap.wsUrl, stranger)).toBe('failed');

      const config = await c.api('/api/config');
      const text = await config.text();
      expect(config.status).toBe(200);
      expect(text).not.toContain(PASSWORD);
      const sections = JSON.parse(text).sections;
      expect(sections.cluster.has_keystore_password).toBe(true);
      expect(sections.cluster.keystore_password).toBeUndefined();
      expect(sections.cluster.has_keystore_previous_password).toBe(false);

      await c.stopKeepingDir();
      stopped = true;
      expect(c.logs.join('')).not.toContain(PASSWORD);
      // The same directory with a wrong password (through the environment, which wins): refused, the key untouched.
      const key = readFileSync(keyFile(keystore));
      const error = await refused(() => startController({ dir: c.dir, env: { SVC_CLUSTER_KEYSTORE_PASSWORD: OTHER } }));
      expect(error.message).toContain('keystore_password');
      expect(readFileSync(keyFile(keystore))).toEqual(key);
      // The right one through the environment: it starts again with the same certificate.
      const again = await startController({ dir: c.dir, env: { SVC_CLUSTER_KEYSTORE_PASSWORD: PASSWORD } });
      try {
        expect(again.controller.kernel.cluster!.certificate!.fingerprint).toBe(bootstrap.fingerprint);
      } finally {
        await again.stopKeepingDir();
      }
      expect(again.logs.join('')).not.toContain(PASSWORD);
    } finally {
      if (!stopped) await c.stopKeepingDir();
      rmSync(c.dir, { recursive: true, force: true });
    }
  });

  test('svc controller with a wrong password exits 2 with one line that names the setting', async () => {
    const dir = join(tmp.dir, 'cli');
    await loadOrCreateCertificate(join(dir, 'data', 'cluster'), SANS, { password: PASSWORD });
    writeFileSync(
      join(dir, 'svc.toml'),
      `[api]\nport = 0\n[cluster]\nenabled = true\nagent_port = 0\nbind = "127.0.0.1"\npublic_host = "127.0.0.1"\ntoken = "t-0123456789abcdef0123456789"\nkeystore_password = "${OTHER}"\n[services]\nisolation = "none"\n`,
    );
    const child = Bun.spawn([process.execPath, join(import.meta.dir, '../../src/main.ts'), 'controller', '--dir', dir], { stdout: 'pipe', stderr: 'pipe', stdin: 'ignore', env: { PATH: process.env.PATH ?? '' } });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
    clearTimeout(timer);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^svc: .*cluster\.key cannot be decrypted with \[cluster\] keystore_password/m);
    expect(stderr + stdout).not.toContain(OTHER);
    expect(stderr + stdout).not.toContain(PASSWORD);
  });
});

import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NodeRegistry, NodeRegistryError } from '../../../src/cluster/identity/registry';
import { secretDigest } from '../../../src/cluster/identity/secret';
import { ConfigError } from '../../../src/config/load';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterAll(() => cleanups.forEach((f) => f()));

function registryFile(): string {
  const { dir, remove } = tempDir('svc-nodes-');
  cleanups.push(remove);
  return join(dir, 'data', 'cluster', 'nodes.json');
}

describe('the node registry', () => {
  test('enrolment hands out a svcn_ secret and keeps only its digest, owner-only', () => {
    const file = registryFile();
    const registry = new NodeRegistry(file, { now: () => new Date('2026-01-02T03:04:05Z') });
    const { secret, replaced } = registry.enrol('node-a', '10.0.0.5');
    expect(secret).toMatch(/^svcn_[A-Za-z0-9_-]{43}$/);
    expect(replaced).toBe(false);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(secret);
    expect(text).not.toContain(secret.slice(5));
    expect(JSON.parse(text)).toEqual({
      version: 1,
      nodes: [{ nodeId: 'node-a', secretSha256: secretDigest(secret), enrolledAt: '2026-01-02T03:04:05.000Z', host: '10.0.0.5', confirmed: false, lastSeenAt: '2026-01-02T03:04:05.000Z', revokedAt: null }],
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(file, '..')).mode & 0o777).toBe(0o700);
    expect(registry.identify(secretDigest(secret))).toBe('node-a');
    expect(registry.identify(secretDigest(`${secret}x`))).toBeUndefined();
  });

  test('survives a restart: identities, confirmations, revocations and hosts are read back', () => {
    const file = registryFile();
    const first = new NodeRegistry(file);
    const a = first.enrol('node-a', 'a.example').secret;
    const b = first.enrol('node-b', 'b.example').secret;
    first.confirm('node-a');
    first.revoke('node-b');
    first.setHost('node-a', 'a2.example');
    const again = new NodeRegistry(file);
    expect(again.identify(secretDigest(a))).toBe('node-a');
    expect(again.get('node-a')).toMatchObject({ confirmed: true, host: 'a2.example', revokedAt: null });
    // Revoked: the secret opens nothing, but its owner is still known (so the node is told why).
    expect(again.identify(secretDigest(b))).toBeUndefined();
    expect(again.ownerOf(secretDigest(b))).toMatchObject({ nodeId: 'node-b' });
    expect(again.get('node-b')!.revokedAt).not.toBeNull();
    expect(again.list().map((n) => n.nodeId)).toEqual(['node-a', 'node-b']);
  });

  test('an unconfirmed enrolment is replaced by the next one (the old secret is void); a confirmed or revoked one never is', () => {
    const registry = new NodeRegistry(null);
    const old = registry.enrol('node-a', 'h').secret;
    const renewed = registry.enrol('node-a', 'h2');
    expect(renewed.replaced).toBe(true);
    expect(registry.identify(secretDigest(old))).toBeUndefined();
    expect(registry.identify(secretDigest(renewed.secret))).toBe('node-a');
    expect(registry.get('node-a')!.host).toBe('h2');
    expect(registry.confirm('node-a')).toBe(true);
    expect(registry.confirm('node-a')).toBe(false);
    expect(() => registry.enrol('node-a', 'h')).toThrow('enrolled already');
    registry.revoke('node-a');
    expect(() => registry.enrol('node-a', 'h')).toThrow('revoked');
    expect(registry.forget('node-a')).toBe(true);
    expect(registry.forget('node-a')).toBe(false);
    expect(registry.enrol('node-a', 'h').replaced).toBe(false);
  });

  test('a write that fails changes nothing', () => {
    const file = registryFile();
    const registry = new NodeRegistry(file);
    const kept = registry.enrol('node-a', 'h').secret;
    // A folder where the file goes: the rename of every write fails.
    rmSync(file);
    mkdirSync(join(file, 'in-the-way'), { recursive: true });
    expect(() => registry.enrol('node-b', 'h')).toThrow();
    expect(registry.get('node-b')).toBeUndefined();
    expect(() => registry.revoke('node-a')).toThrow();
    expect(registry.identify(secretDigest(kept))).toBe('node-a');
    rmSync(file, { recursive: true });
    registry.seen('node-a');
    const reread = new NodeRegistry(file);
    expect(reread.list().map((n) => n.nodeId)).toEqual(['node-a']);
    expect(reread.get('node-a')!.revokedAt).toBeNull();
  });

  test('a broken file stops the controller with what to do, never an empty registry', () => {
    const file = registryFile();
    new NodeRegistry(file).enrol('node-a', 'h');
    writeFileSync(file, '{"version":1,"nodes":[{"nodeId":"x"}]}');
    expect(() => new NodeRegistry(file)).toThrow(NodeRegistryError);
    writeFileSync(file, 'not json');
    let thrown: unknown;
    try {
      new NodeRegistry(file);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toContain('move it away');
    expect(existsSync(file)).toBe(true);
  });
});

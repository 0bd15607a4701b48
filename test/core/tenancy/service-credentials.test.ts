import { afterAll, describe, expect, test } from 'bun:test';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Authenticator, TENANT_TOKEN_PREFIX } from '../../../src/core/auth';
import { ServiceCredentials } from '../../../src/core/tenancy/service-credentials';
import { tempDir } from '../../support/controller';

const sha = (token: string) => createHash('sha256').update(token).digest('hex');
const dirs: (() => void)[] = [];
afterAll(() => dirs.forEach((remove) => remove()));

function fresh() {
  const { dir: path, remove } = tempDir('svc-credentials-');
  dirs.push(remove);
  const live = new Set<string>();
  const file = join(path, 'state', 'service-credentials.json');
  const open = () => new ServiceCredentials(file, (name) => live.has(name));
  return { file, live, open };
}

describe('per-service credentials', () => {
  test('a credential names its service and role while the service is active, and only then', () => {
    const { live, open } = fresh();
    const store = open();
    live.add('Lobby-1');
    const token = store.issue('Lobby-1', 'backend');
    expect(token.startsWith(TENANT_TOKEN_PREFIX)).toBe(true);
    expect(token.length).toBeGreaterThan(40);
    expect(store.identify(sha(token))).toEqual({ service: 'Lobby-1', role: 'backend' });
    live.delete('Lobby-1');
    expect(store.identify(sha(token))).toBeUndefined();
    live.add('Lobby-1');
    expect(store.identify(sha(token))).toEqual({ service: 'Lobby-1', role: 'backend' });
    store.revoke('Lobby-1');
    expect(store.identify(sha(token))).toBeUndefined();
  });

  test('each launch replaces the previous credential; services never share one', () => {
    const { live, open } = fresh();
    const store = open();
    live.add('Lobby-1').add('Proxy-1');
    const first = store.issue('Lobby-1', 'backend');
    const second = store.issue('Lobby-1', 'backend');
    const proxy = store.issue('Proxy-1', 'proxy');
    expect(new Set([first, second, proxy]).size).toBe(3);
    expect(store.identify(sha(first))).toBeUndefined();
    expect(store.identify(sha(second))?.service).toBe('Lobby-1');
    expect(store.identify(sha(proxy))).toEqual({ service: 'Proxy-1', role: 'proxy' });
  });

  test('survives a restart of the controller as digests only, in an owner-only file', () => {
    const { file, live, open } = fresh();
    live.add('Lobby-1');
    const token = open().issue('Lobby-1', 'backend');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).toContain(sha(token));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(open().identify(sha(token))).toEqual({ service: 'Lobby-1', role: 'backend' });
  });

  test('a damaged file is reported and opens nothing', () => {
    const { file, live } = fresh();
    live.add('Lobby-1');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{"version":1,"credentials":[{"service":"Lobby-1","role":"admin","sha256":"00"}]}');
    const warnings: string[] = [];
    const store = new ServiceCredentials(file, (name) => live.has(name), { warn: (m) => warnings.push(m) });
    expect(store.size).toBe(0);
    expect(warnings.join('\n')).toContain('unexpected shape');
  });

  test('the authenticator identifies them as the service, with no scopes, and nothing else under the prefix', async () => {
    const { live, open } = fresh();
    const store = open();
    live.add('Proxy-1');
    const auth = new Authenticator({ masterToken: 'master-token-0123456789abcdef', clusterToken: '', jwtEnabled: false });
    auth.useTenants(store);
    const token = store.issue('Proxy-1', 'proxy');
    const who = await auth.identify(token);
    expect(who).toMatchObject({ kind: 'tenant', actor: 'api:service:Proxy-1', tenant: { service: 'Proxy-1', role: 'proxy' } });
    expect(await auth.identify(`${TENANT_TOKEN_PREFIX}not-one-we-issued`)).toBe('invalid');
    expect(await auth.identify(token.slice(0, -1))).toBe('invalid');
  });
});

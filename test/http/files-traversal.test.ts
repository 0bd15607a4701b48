/**
 * Path traversal against the files API, over raw TCP so the server receives every payload
 * exactly as typed (fetch and URL would normalise `..`, `%2e` and backslashes first). Every
 * payload of the corpus goes to every method; links leading out of the scope are planted
 * first. Zero escapes: the sentinels outside the scope are never read, written or deleted,
 * nothing appears outside, and every answer is the error body with a path or scope code,
 * never a 2xx, never a 5xx.
 *
 * The server itself resolves dot segments the way the URL standard does (`a/%2e%2e/b` is
 * `b`) before routing. A payload the standard resolves to another route is answered for
 * that route (ROUTE_NOT_FOUND or INVALID_SCOPE); one it resolves to a harmless path inside
 * the scope (`.` is the root) is only checked for escapes.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRequestPath } from '../../src/core/files/path-syntax';
import { startController, type TestController } from '../support/controller';
import { rawRequest, type RawResponse } from '../support/raw-http';
import { LEXICAL_PAYLOADS, SENTINEL } from '../support/traversal-corpus';

const SECRET = 'SENTINEL-d41d8cd98f00b204-do-not-serve';
const CONCURRENCY = 16;

const c: TestController = await startController();
afterAll(() => c.stop());
const port = c.controller.port;
const { templates, services, config } = c.controller.kernel.paths;
const groups = join(config, 'groups');

// Outside every scope: a sentinel next to the scopes (../secret.txt) and a folder links point at.
const outside = join(c.dir, 'outside');
mkdirSync(outside);
writeFileSync(join(outside, SENTINEL), SECRET);
writeFileSync(join(c.dir, SENTINEL), SECRET);
const tmpSentinel = join(c.dir, '..', SENTINEL);
const tmpSentinelExisted = existsSync(tmpSentinel);

// Inside the scopes: ordinary content and links leading out.
mkdirSync(join(templates, 'lobby/plugins'), { recursive: true });
writeFileSync(join(templates, 'lobby/server.properties'), 'motd=inside\n');
mkdirSync(groups, { recursive: true });
writeFileSync(join(groups, 'Lobby.toml'), 'name = "Lobby"\n');
const LINKS: Record<string, string> = {
  'escape-dir': outside,
  'escape-file': join(outside, SENTINEL),
  'chain-1': join(templates, 'chain-2'),
  'chain-2': join(templates, 'chain-3'),
  'chain-3': outside,
  dangling: join(outside, 'missing.txt'),
  'lobby/rel-up': '../..',
  'lobby/plugins/escape': '../../../outside',
};
for (const root of [templates, services]) for (const [at, to] of Object.entries(LINKS)) {
  mkdirSync(join(root, at, '..'), { recursive: true });
  symlinkSync(to.startsWith(templates) ? join(root, to.slice(templates.length)) : to, join(root, at));
}
symlinkSync(outside, join(groups, 'escape-dir'));

const LINK_PAYLOADS = [
  'escape-dir',
  'escape-dir/',
  `escape-dir/${SENTINEL}`,
  'escape-dir/new.txt',
  'escape-dir/sub/new.txt',
  'escape-file',
  'chain-1',
  `chain-1/${SENTINEL}`,
  'chain-1/new.txt',
  'dangling',
  'dangling/x',
  'lobby/rel-up',
  `lobby/rel-up/${SENTINEL}`,
  `lobby/rel-up/outside/${SENTINEL}`,
  'lobby/rel-up/new.txt',
  'lobby/plugins/escape',
  `lobby/plugins/escape/${SENTINEL}`,
];
/** Safe names that only look like dots: they must simply not exist. */
const LOOKALIKES = [`%ef%bc%8e%ef%bc%8e/${SENTINEL}`, `%e2%80%a5/${SENTINEL}`, `%c2%b7%c2%b7/${SENTINEL}`, `%uff0e%uff0e/${SENTINEL}`, `%e3%80%82%e3%80%82/${SENTINEL}`];
/** A literal space cannot stand in a request line (the server answers 505): it goes as %20. */
const PAYLOADS = [...new Set([...LEXICAL_PAYLOADS, ...LINK_PAYLOADS, ...LOOKALIKES].map((p) => p.replaceAll(' ', '%20')))];

const BOUNDARY = 'svc-traversal';
/** A quoted-string parameter: backslash and quote escaped, so the name arrives as written. */
const quoted = (text: string) => `"${text.replace(/[\\"]/g, (ch) => `\\${ch}`)}"`;
const multipart = (filename: string, content = 'PWNED') =>
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename=${quoted(filename)}\r\nContent-Type: application/octet-stream\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`;
const auth = { authorization: `Bearer ${c.master}` };

type Kind = 'GET' | 'GET raw' | 'PUT' | 'POST mkdir' | 'POST ?mkdir' | 'POST upload' | 'DELETE';
const KINDS: readonly Kind[] = ['GET', 'GET raw', 'PUT', 'POST mkdir', 'POST ?mkdir', 'POST upload', 'DELETE'];

function send(scope: string, payload: string, kind: Kind): Promise<RawResponse> {
  const target = `/api/files/${scope}/${payload}`;
  switch (kind) {
    case 'GET':
      return rawRequest(port, { method: 'GET', target, headers: auth });
    case 'GET raw':
      return rawRequest(port, { method: 'GET', target: `${target}?raw=1`, headers: auth });
    case 'PUT':
      return rawRequest(port, { method: 'PUT', target, headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ content: 'PWNED' }) });
    case 'POST mkdir':
      return rawRequest(port, { method: 'POST', target, headers: { ...auth, 'content-type': 'application/json' }, body: '{"type":"directory"}' });
    case 'POST ?mkdir':
      // The dashboard's New Folder: a JSON content type and no body.
      return rawRequest(port, { method: 'POST', target: `${target}?mkdir`, headers: { ...auth, 'content-type': 'application/json' } });
    case 'POST upload':
      return rawRequest(port, { method: 'POST', target, headers: { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body: multipart('pwned.txt') });
    case 'DELETE':
      return rawRequest(port, { method: 'DELETE', target, headers: auth });
  }
}

/** How the server sees the payload after the URL standard's dot-segment and backslash handling. */
function seenAs(scope: string, payload: string): 'elsewhere' | 'benign' | 'as-sent' {
  const prefix = `/api/files/${scope}/`;
  const normalised = new URL(`http://h${prefix}${payload}`).pathname;
  if (!normalised.startsWith(prefix)) return 'elsewhere';
  if (normalised === `${prefix}${payload}`) return 'as-sent';
  try {
    parseRequestPath(normalised.slice(prefix.length));
    return 'benign';
  } catch {
    return 'as-sent';
  }
}

interface Verdict {
  problem: string | null;
  benign: boolean;
  code?: string;
}

function judge(scope: string, payload: string, kind: Kind, res: RawResponse): Verdict {
  const where = `${kind} /api/files/${scope}/${payload.slice(0, 80)} → ${res.status} ${res.text.slice(0, 200)}`;
  if (res.text.includes(SECRET) || res.text.includes(Buffer.from(SECRET).toString('base64')) || res.text.includes('root:x:0:0')) return { problem: `LEAK: ${where}`, benign: false };
  if (res.status >= 500) return { problem: `server error: ${where}`, benign: false };
  const seen = seenAs(scope, payload);
  if (seen === 'benign') return { problem: null, benign: true };
  let body: { success?: unknown; error?: unknown; message?: unknown };
  try {
    body = JSON.parse(res.text);
  } catch {
    return { problem: `not the error body: ${where}`, benign: false };
  }
  if (body.success !== false || typeof body.message !== 'string' || typeof body.error !== 'string') return { problem: `not the error body: ${where}`, benign: false };
  // Scope and route codes only where the URL standard itself moved the request off this scope.
  const allowed = new Set(seen === 'elsewhere' ? ['INVALID_SCOPE', 'ROUTE_NOT_FOUND', 'PATH_TRAVERSAL', 'PATH_NOT_FOUND'] : ['PATH_TRAVERSAL', 'PATH_NOT_FOUND']);
  if (scope === 'groups' && kind !== 'GET' && kind !== 'GET raw') allowed.add('READ_ONLY');
  if (!allowed.has(body.error)) return { problem: `unexpected ${body.error}: ${where}`, benign: false };
  return { problem: null, benign: false, code: body.error };
}

async function pool<T>(items: readonly T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

function snapshotOutside(): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const name of readdirSync(outside)) seen[`outside/${name}`] = readFileSync(join(outside, name), 'utf8');
  for (const name of readdirSync(c.dir)) seen[name] = lstatSync(join(c.dir, name)).isFile() ? readFileSync(join(c.dir, name), 'utf8').slice(0, 64) : 'dir';
  return seen;
}

function linksIntact(): string[] {
  const broken: string[] = [];
  for (const root of [templates, services]) {
    for (const at of Object.keys(LINKS)) if (!lstatSync(join(root, at)).isSymbolicLink()) broken.push(join(root, at));
  }
  if (readlinkSync(join(groups, 'escape-dir')) !== outside) broken.push('groups/escape-dir');
  return broken;
}

describe('files API: traversal corpus over raw TCP', () => {
  const before = snapshotOutside();

  test(`the corpus has at least 100 payloads (${PAYLOADS.length})`, () => {
    expect(PAYLOADS.length).toBeGreaterThanOrEqual(100);
  });

  for (const scope of ['templates', 'services', 'groups']) {
    test(`${scope}: every payload × ${KINDS.join(', ')} → refused, 0 escapes`, async () => {
      const cases = PAYLOADS.flatMap((payload) => KINDS.map((kind) => ({ payload, kind })));
      const problems: string[] = [];
      let benign = 0;
      const codes: Record<string, number> = {};
      await pool(cases, async ({ payload, kind }) => {
        const verdict = judge(scope, payload, kind, await send(scope, payload, kind));
        if (verdict.problem) problems.push(verdict.problem);
        if (verdict.benign) benign++;
        if (verdict.code) codes[verdict.code] = (codes[verdict.code] ?? 0) + 1;
      });
      expect(problems).toEqual([]);
      // Most payloads reach the files routes as sent and are refused by the path checks themselves.
      expect(codes.PATH_TRAVERSAL ?? 0).toBeGreaterThan(cases.length / 2);
      // Only `.`-style payloads resolve to the scope itself; the rest are all answered as refusals.
      expect(benign).toBeLessThanOrEqual(4 * KINDS.length);
      expect(snapshotOutside()).toEqual(before);
      expect(linksIntact()).toEqual([]);
    }, 60_000);
  }

  test('upload file names that leave the directory are PATH_TRAVERSAL', async () => {
    const names = ['..', '../x', `../../${SENTINEL}`, `../../outside/${SENTINEL}`, '/etc/passwd', 'a/b', 'C:\\x', '..\\x', '.', '...', ' ', 'c:x', 'x\u0001y'];
    const problems: string[] = [];
    for (const name of names) {
      for (const via of ['filename', 'field'] as const) {
        const body =
          via === 'filename'
            ? multipart(name)
            : `--${BOUNDARY}\r\nContent-Disposition: form-data; name="filename"\r\n\r\n${name}\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="ok.txt"\r\n\r\nPWNED\r\n--${BOUNDARY}--\r\n`;
        const res = await rawRequest(port, { method: 'POST', target: '/api/files/templates/lobby', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` }, body });
        const error = res.status === 400 ? (JSON.parse(res.text) as { error: string }).error : `${res.status} ${res.text.slice(0, 100)}`;
        if (error !== 'PATH_TRAVERSAL') problems.push(`${via} ${JSON.stringify(name)}: ${error}`);
      }
    }
    expect(problems).toEqual([]);
    expect(readdirSync(join(templates, 'lobby')).sort()).toEqual(['plugins', 'rel-up', 'server.properties']);
    expect(snapshotOutside()).toEqual(before);
  });

  test('afterwards: sentinels intact, nothing written next to them, links untouched', () => {
    expect(readFileSync(join(outside, SENTINEL), 'utf8')).toBe(SECRET);
    expect(readFileSync(join(c.dir, SENTINEL), 'utf8')).toBe(SECRET);
    expect(readdirSync(outside)).toEqual([SENTINEL]);
    if (!tmpSentinelExisted) expect(existsSync(tmpSentinel)).toBe(false);
    expect(existsSync(join(c.dir, 'pwned.txt'))).toBe(false);
    expect(existsSync(join(c.dir, 'new.txt'))).toBe(false);
    expect(linksIntact()).toEqual([]);
  });
});

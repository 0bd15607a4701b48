import { afterEach, describe, expect, test } from 'bun:test';
import { fetchRelease, ReleaseError } from '../../../src/core/update/release';
import { REPO_PATH, serve } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

const UA = 'svc/0.13.0';

/** A feed whose releases are answered from `bodies` (path → JSON or a Response); everything else 404. */
function feed(bodies: Record<string, unknown>) {
  const server = serve((request) => {
    const body = bodies[new URL(request.url).pathname];
    if (body === undefined) return Response.json({ message: 'Not Found' }, { status: 404 });
    return body instanceof Response ? body : Response.json(body);
  });
  cleanups.push(server.stop);
  const paths = () => server.requests.map((r) => r.path);
  return { ...server, paths, latestUrl: `${server.url}${REPO_PATH}/latest` };
}

const releaseJson = (version: string, assets: unknown[] = []) => ({ tag_name: `v${version}`, html_url: `https://example.invalid/v${version}`, assets });

async function refusal(promise: Promise<unknown>): Promise<ReleaseError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ReleaseError);
  return error as ReleaseError;
}

describe('fetchRelease', () => {
  test('the latest release: version without its v, page URL, assets; the user agent is sent', async () => {
    const server = feed({ [`${REPO_PATH}/latest`]: releaseJson('0.14.2', [{ name: 'svc-linux-x64', size: 1234, browser_download_url: 'https://example.invalid/dl/svc-linux-x64' }]) });
    const release = await fetchRelease({ feedUrl: server.latestUrl, userAgent: UA });
    expect(release).toEqual({ version: '0.14.2', pageUrl: 'https://example.invalid/v0.14.2', assets: [{ name: 'svc-linux-x64', size: 1234, url: 'https://example.invalid/dl/svc-linux-x64' }] });
    expect(server.paths()).toEqual([`${REPO_PATH}/latest`]);
    expect(server.requests[0]!.headers['user-agent']).toBe(UA);
    expect(server.requests[0]!.headers.accept).toBe('application/json');
  });

  test('a tag_name without a v is read as well', async () => {
    const server = feed({ [`${REPO_PATH}/latest`]: { tag_name: '1.2.3' } });
    expect(await fetchRelease({ feedUrl: server.latestUrl, userAgent: UA })).toEqual({ version: '1.2.3', pageUrl: null, assets: [] });
  });

  test('a pinned version is read from /releases/tags/v<version>', async () => {
    const server = feed({ [`${REPO_PATH}/latest`]: releaseJson('0.15.0'), [`${REPO_PATH}/tags/v0.14.1`]: releaseJson('0.14.1') });
    const release = await fetchRelease({ feedUrl: server.latestUrl, version: '0.14.1', userAgent: UA });
    expect(release.version).toBe('0.14.1');
    expect(server.paths()).toEqual([`${REPO_PATH}/tags/v0.14.1`]);
  });

  test('a pinned version given with its v is the same version', async () => {
    const server = feed({ [`${REPO_PATH}/tags/v0.14.1`]: releaseJson('0.14.1') });
    expect((await fetchRelease({ feedUrl: server.latestUrl, version: 'v0.14.1', userAgent: UA })).version).toBe('0.14.1');
  });

  test('a pinned version tagged without a v is found under /releases/tags/<version>', async () => {
    const server = feed({ [`${REPO_PATH}/tags/0.14.1`]: { tag_name: '0.14.1', assets: [] } });
    const release = await fetchRelease({ feedUrl: server.latestUrl, version: '0.14.1', userAgent: UA });
    expect(release.version).toBe('0.14.1');
    expect(server.paths()).toEqual([`${REPO_PATH}/tags/v0.14.1`, `${REPO_PATH}/tags/0.14.1`]);
  });

  test('a feed URL ending in /releases/latest/ (trailing slash) also finds tags', async () => {
    const server = feed({ [`${REPO_PATH}/tags/v0.14.1`]: releaseJson('0.14.1') });
    expect((await fetchRelease({ feedUrl: `${server.latestUrl}/`, version: '0.14.1', userAgent: UA })).version).toBe('0.14.1');
  });

  test('a missing version: an error naming it and both tags tried', async () => {
    const server = feed({ [`${REPO_PATH}/latest`]: releaseJson('0.15.0') });
    const error = await refusal(fetchRelease({ feedUrl: server.latestUrl, version: '0.14.9', userAgent: UA }));
    expect(error.message).toBe('there is no release 0.14.9 (tag v0.14.9 or 0.14.9)');
    expect(server.paths()).toEqual([`${REPO_PATH}/tags/v0.14.9`, `${REPO_PATH}/tags/0.14.9`]);
  });

  test('a tag serving another version is refused', async () => {
    const server = feed({ [`${REPO_PATH}/tags/v0.14.1`]: releaseJson('0.14.2') });
    expect((await refusal(fetchRelease({ feedUrl: server.latestUrl, version: '0.14.1', userAgent: UA }))).message).toBe('the release tagged v0.14.1 is version 0.14.2');
  });

  test('a server error on the first tag is reported, not taken for "no such tag"', async () => {
    const server = feed({ [`${REPO_PATH}/tags/v0.14.1`]: new Response('oops', { status: 502 }), [`${REPO_PATH}/tags/0.14.1`]: releaseJson('0.14.1') });
    const error = await refusal(fetchRelease({ feedUrl: server.latestUrl, version: '0.14.1', userAgent: UA }));
    expect(error.message).toMatch(/answered 502/);
    expect(server.paths()).toEqual([`${REPO_PATH}/tags/v0.14.1`]);
  });

  describe('a feed URL that is not …/releases/latest', () => {
    test('serves a pinned version only when it is the one it names', async () => {
      const server = feed({ '/svc/latest.json': releaseJson('0.15.0') });
      expect((await fetchRelease({ feedUrl: `${server.url}/svc/latest.json`, version: '0.15.0', userAgent: UA })).version).toBe('0.15.0');
    });

    test('a pinned version other than its latest: an error explaining the URL form', async () => {
      const server = feed({ '/svc/latest.json': releaseJson('0.15.0') });
      const error = await refusal(fetchRelease({ feedUrl: `${server.url}/svc/latest.json`, version: '0.14.1', userAgent: UA }));
      expect(error.message).toBe('the update feed names only its latest release (0.15.0); to install 0.14.1, point update_check_url at a GitHub-style …/releases/latest URL');
      expect(server.paths()).toEqual(['/svc/latest.json']);
    });
  });

  test.each(['latest', '', 'v', '1', '1.2.3.4', '1.2.3-beta', '../1.2.3', '1.2.x'])('a malformed pinned version %p is refused before any request', async (version) => {
    const server = feed({ [`${REPO_PATH}/latest`]: releaseJson('0.15.0') });
    const error = await refusal(fetchRelease({ feedUrl: server.latestUrl, version, userAgent: UA }));
    expect(error.message).toBe(`"${version}" is not a release version (like 0.15.1)`);
    expect(server.requests).toHaveLength(0);
  });

  describe('broken answers are ReleaseErrors that say what came back', () => {
    test.each([
      ['not JSON', new Response('<html>rate limited</html>', { headers: { 'content-type': 'text/html' } }), /^the update feed \S+ did not answer JSON$/],
      ['a 500', new Response('boom', { status: 500 }), /^the update feed \S+ answered 500 Internal Server Error$/],
      ['a 403', new Response('{}', { status: 403 }), /answered 403 Forbidden$/],
      ['a tag_name that is no version', Response.json({ tag_name: 'nightly' }), /^the update feed \S+ names no release version \(tag_name "nightly"\)$/],
      ['no tag_name', Response.json({ name: 'svc 0.14.0' }), /names no release version \(tag_name undefined\)$/],
      ['a JSON array', Response.json([releaseJson('0.14.0')]), /did not answer a release object$/],
    ])('%s', async (_, response, message) => {
      const server = feed({ [`${REPO_PATH}/latest`]: response });
      expect((await refusal(fetchRelease({ feedUrl: server.latestUrl, userAgent: UA }))).message).toMatch(message);
    });

    test('a 404 on the latest release', async () => {
      const server = feed({});
      await refusal(fetchRelease({ feedUrl: server.latestUrl, userAgent: UA }));
    });

    test('a feed that does not answer', async () => {
      const server = feed({});
      server.stop();
      const error = await refusal(fetchRelease({ feedUrl: server.latestUrl, userAgent: UA }));
      expect(error.message).toStartWith(`the update feed ${server.latestUrl} did not answer: `);
    });
  });

  test('assets: relative URLs resolved against the feed, non-http(s) URLs and malformed entries dropped, odd sizes marked -1', async () => {
    const server = feed({
      [`${REPO_PATH}/latest`]: releaseJson('0.14.0', [
        { name: 'relative', size: 10, browser_download_url: '/download/v0.14.0/relative' },
        { name: 'sibling', size: 11, browser_download_url: 'tags/v0.14.0/sibling' },
        { name: 'https', size: 12, browser_download_url: 'https://cdn.example.invalid/svc' },
        { name: 'ftp', size: 13, browser_download_url: 'ftp://example.invalid/svc' },
        { name: 'file', size: 14, browser_download_url: 'file:///etc/passwd' },
        { name: 'javascript', size: 15, browser_download_url: 'javascript:alert(1)' },
        { name: 'data', size: 16, browser_download_url: 'data:application/octet-stream;base64,AAAA' },
        { name: 'no-url', size: 17 },
        { size: 18, browser_download_url: 'https://example.invalid/nameless' },
        { name: 'bad-url', size: 19, browser_download_url: 'http://[::1' },
        { name: 'fractional-size', size: 1.5, browser_download_url: 'https://example.invalid/a' },
        { name: 'string-size', size: '20', browser_download_url: 'https://example.invalid/b' },
        { name: 'no-size', browser_download_url: 'https://example.invalid/c' },
        'not an object',
        42,
      ]),
    });
    const release = await fetchRelease({ feedUrl: server.latestUrl, userAgent: UA });
    expect(release.assets).toEqual([
      { name: 'relative', size: 10, url: `${server.url}/download/v0.14.0/relative` },
      { name: 'sibling', size: 11, url: `${server.url}${REPO_PATH}/tags/v0.14.0/sibling` },
      { name: 'https', size: 12, url: 'https://cdn.example.invalid/svc' },
      { name: 'fractional-size', size: -1, url: 'https://example.invalid/a' },
      { name: 'string-size', size: -1, url: 'https://example.invalid/b' },
      { name: 'no-size', size: -1, url: 'https://example.invalid/c' },
    ]);
  });

  // JSON null where an object belongs (the whole answer, or one asset) is handled like any other malformed value.
  test('a null entry in assets is skipped like any other malformed entry', async () => {
    const server = feed({ [`${REPO_PATH}/latest`]: releaseJson('0.14.0', [null, { name: 'ok', size: 1, browser_download_url: 'https://example.invalid/ok' }]) });
    expect((await fetchRelease({ feedUrl: server.latestUrl, userAgent: UA })).assets.map((a) => a.name)).toEqual(['ok']);
  });

  test('a feed answering the JSON null is a ReleaseError', async () => {
    const server = feed({ [`${REPO_PATH}/latest`]: new Response('null', { headers: { 'content-type': 'application/json' } }) });
    expect((await refusal(fetchRelease({ feedUrl: server.latestUrl, userAgent: UA }))).message).toMatch(/did not answer a release object$/);
  });

  test('assets that are not a list, and an html_url that is not a string, read as none', async () => {
    const server = feed({ [`${REPO_PATH}/latest`]: { tag_name: 'v0.14.0', html_url: 42, assets: { name: 'x' } } });
    expect(await fetchRelease({ feedUrl: server.latestUrl, userAgent: UA })).toEqual({ version: '0.14.0', pageUrl: null, assets: [] });
  });
});

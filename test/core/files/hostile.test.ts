/**
 * The files API (admin) over a service directory a server booby-trapped: confinement as before,
 * no FIFO blocks a read, nothing outside is read or written, and what the API creates in a
 * directory of another user becomes that user's.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { chownSync, lstatSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileStore, type FileContent, type Listing } from '../../../src/core/files/file-store';
import { fileScopes } from '../../../src/core/files/scopes';
import { ApiError } from '../../../src/errors';
import { removeTempDirs, writeTree } from '../templates/fixtures';
import { expectNoSecret, expectOutsideUntouched, fifoWatchdog, hostileBase, plant, recordingLogger, type Hostile } from '../templates/hostile';

afterEach(removeTempDirs);

const ACTOR = 'api:admin' as const;
const BOUNDARY = 'hostile-boundary';

function setup(): { h: Hostile; store: FileStore; service: string } {
  const h = hostileBase();
  const services = join(h.base, 'services');
  const service = join(services, 'Lobby-1');
  writeTree(service, { 'server.properties': 'motd=x\n', 'plugins/ok.yml': 'ok\n' });
  plant(h, service, { fileLink: ['leak.txt'], dirLink: ['world'], fifo: ['pipe'], hardlink: ['ops.json'] });
  const store = new FileStore(fileScopes({ templates: join(h.base, 'templates'), services, config: join(h.base, 'config') }), recordingLogger());
  return { h, store, service };
}

async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'done';
  } catch (error) {
    if (error instanceof ApiError) return error.errorCode;
    throw error;
  }
}

function uploadBody(name: string, content: string): ReadableStream<Uint8Array> {
  return new Response(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`).body!;
}

describe('files API over a hostile service directory', () => {
  test('reads: links out are traversal, a FIFO is refused at once, listings show links as themselves', async () => {
    const { h, store, service } = setup();
    const scope = store.scope('services');
    const dog = fifoWatchdog([join(service, 'pipe')]);
    try {
      expect(await refusal(() => store.read(scope, ['Lobby-1', 'leak.txt']))).toBe('PATH_TRAVERSAL');
      expect(await refusal(() => store.read(scope, ['Lobby-1', 'world', 'inner.txt']))).toBe('PATH_TRAVERSAL');
      expect(await refusal(() => store.read(scope, ['Lobby-1', 'pipe']))).toBe('PATH_NOT_FOUND');
      expect(await refusal(() => store.read(scope, ['Lobby-1', 'pipe'], 'raw'))).toBe('PATH_NOT_FOUND');
      const listing = (await store.read(scope, ['Lobby-1'])) as Listing;
      expect(listing.entries.map((e) => e.name).sort()).toEqual(['leak.txt', 'ops.json', 'pipe', 'plugins', 'server.properties', 'world']);
      expect(listing.entries.find((e) => e.name === 'world')!.isDirectory).toBe(false);
      expectNoSecret(h, JSON.stringify(listing));
      expect(((await store.read(scope, ['Lobby-1', 'server.properties'])) as FileContent).content).toBe('motd=x\n');
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expectOutsideUntouched(h);
  });

  test('writes: a hard-linked file is replaced, links out are refused, nothing lands outside', async () => {
    const { h, store, service } = setup();
    const scope = store.scope('services');
    await store.write(scope, ['Lobby-1', 'ops.json'], { content: '[]' }, ACTOR);
    expect(readFileSync(join(service, 'ops.json'), 'utf8')).toBe('[]');
    expect(statSync(join(service, 'ops.json')).nlink).toBe(1);
    expect(await refusal(() => store.write(scope, ['Lobby-1', 'leak.txt'], { content: 'pwned' }, ACTOR))).toBe('PATH_TRAVERSAL');
    expect(await refusal(() => store.write(scope, ['Lobby-1', 'world', 'inner.txt'], { content: 'pwned' }, ACTOR))).toBe('PATH_TRAVERSAL');
    expect(await refusal(() => store.makeDirectory(scope, ['Lobby-1', 'world', 'x'], ACTOR))).toBe('PATH_TRAVERSAL');
    expect(await refusal(() => store.write(scope, ['Lobby-1', 'pipe'], { content: 'x' }, ACTOR))).toBe('VALIDATION_FAILED');
    // A link out is not even deleted through the API (confinement as before); the hard link is.
    expect(await refusal(() => store.remove(scope, ['Lobby-1', 'leak.txt'], ACTOR))).toBe('PATH_TRAVERSAL');
    await store.remove(scope, ['Lobby-1', 'ops.json'], ACTOR);
    expect(() => lstatSync(join(service, 'ops.json'))).toThrow();
    expectOutsideUntouched(h);
  });

  test.if(process.geteuid?.() === 0)('what the API creates in a directory of another user becomes that user’s; a replaced file keeps its owner', async () => {
    const { h, store, service } = setup();
    const scope = store.scope('services');
    chownSync(service, 4321, 4322);
    chownSync(join(service, 'plugins'), 4321, 4322);
    writeFileSync(join(service, 'theirs.yml'), 'a');
    chownSync(join(service, 'theirs.yml'), 4400, 4401);
    await store.write(scope, ['Lobby-1', 'new.yml'], { content: 'n' }, ACTOR);
    await store.makeDirectory(scope, ['Lobby-1', 'config'], ACTOR);
    await store.upload(scope, ['Lobby-1', 'plugins'], { body: uploadBody('Plugin.jar', 'jar'), contentType: `multipart/form-data; boundary=${BOUNDARY}` }, ACTOR);
    await store.write(scope, ['Lobby-1', 'theirs.yml'], { content: 'b' }, ACTOR);
    await store.write(scope, ['Lobby-1', 'server.properties'], { content: 'motd=y\n' }, ACTOR);
    const owner = (rel: string) => [lstatSync(join(service, rel)).uid, lstatSync(join(service, rel)).gid];
    expect(owner('new.yml')).toEqual([4321, 4322]);
    expect(owner('config')).toEqual([4321, 4322]);
    expect(owner('plugins/Plugin.jar')).toEqual([4321, 4322]);
    expect(owner('theirs.yml')).toEqual([4400, 4401]);
    // A file svc's own user had keeps that owner (root here).
    expect(owner('server.properties')).toEqual([0, 0]);
    // The admin's own scope (a folder of svc's user) is unchanged.
    await store.write(store.scope('templates'), ['t.txt'], { content: 't' }, ACTOR).catch(() => undefined);
    expectOutsideUntouched(h);
  });

  test('the service root reached through a real path is the one checked', async () => {
    const { store, service } = setup();
    const scope = store.scope('services');
    await store.write(scope, ['Lobby-1', 'plugins', 'new.yml'], { content: 'n' }, ACTOR);
    expect(readFileSync(join(realpathSync(service), 'plugins', 'new.yml'), 'utf8')).toBe('n');
  });
});

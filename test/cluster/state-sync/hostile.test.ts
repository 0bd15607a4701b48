/** State sync of a booby-trapped work dir: manifests, pushes and pulls never read or write through what a server planted. */
import { afterEach, describe, expect, test } from 'bun:test';
import { lstatSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pullState, pushState } from '../../../src/cluster/state-sync/client';
import { buildManifest, type Manifest } from '../../../src/cluster/state-sync/manifest';
import { removeTempDirs, writeTree } from '../../core/templates/fixtures';
import { expectNoSecret, expectNoSecretUnder, expectOutsideUntouched, fifoWatchdog, hostileBase, plant, recordingLogger, type Hostile } from '../../core/templates/hostile';

afterEach(removeTempDirs);

const sha256 = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex');

const PLANTED = { fileLink: ['server.properties', 'plugins/leak.yml'], dirLink: ['world', 'plugins/linked'], fifo: ['spigot.yml'], hardlink: ['ops.json'] };

function hostileWork(): { h: Hostile; work: string; fifos: string[] } {
  const h = hostileBase();
  const work = join(h.base, 'static', 'Survival-1');
  writeTree(work, { 'plugins/ok.yml': 'ok: true\n', 'level/level.dat': 'level' });
  plant(h, work, PLANTED);
  return { h, work, fifos: [join(work, 'spigot.yml')] };
}

/** A controller stand-in: answers the manifest, keeps what is pushed, serves files of `files`. */
function fakeController(remote: Manifest, files: Record<string, string> = {}) {
  const pushed: Uint8Array[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = String(input);
    if (url.endsWith('/manifest')) return Response.json(remote);
    if (url.endsWith('/sync')) {
      pushed.push(new Uint8Array(await new Response(init!.body as ReadableStream).arrayBuffer()));
      return Response.json({ filesReceived: 0, bytesReceived: 0, filesInManifest: 0 });
    }
    const rel = decodeURIComponent(url.slice(url.indexOf('/file/') + '/file/'.length));
    return new Response(files[rel] ?? '', { status: files[rel] === undefined ? 404 : 200 });
  };
  return { fetch, pushed };
}

describe('state sync of a hostile work dir', () => {
  test('the manifest lists regular files only; nothing outside is hashed or opened', async () => {
    const { h, work, fifos } = hostileWork();
    const skipped: string[] = [];
    const dog = fifoWatchdog(fifos);
    let manifest: Manifest;
    try {
      manifest = await buildManifest(work, { onSkipped: (rel) => skipped.push(rel) });
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(Object.keys(manifest.files)).toEqual(['level/level.dat', 'plugins/ok.yml']);
    expect(skipped.sort()).toEqual(['ops.json', 'plugins/leak.yml', 'plugins/linked', 'server.properties', 'spigot.yml', 'world']);
    const hashes = Object.values(manifest.files).map((entry) => entry.sha256);
    for (const secret of h.secrets) expect(hashes).not.toContain(sha256(`${secret}\n`));
    expectOutsideUntouched(h);
  });

  test('a push sends only those files and reports what it left out', async () => {
    const { h, work, fifos } = hostileWork();
    const controller = fakeController({ files: {} });
    const log = recordingLogger();
    const dog = fifoWatchdog(fifos);
    let summary;
    try {
      summary = await pushState({ baseUrl: 'http://controller', token: 't', service: 'Survival-1', dir: work, fetch: controller.fetch, log });
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(summary.uploaded).toEqual(['level/level.dat', 'plugins/ok.yml']);
    expect(summary.skipped.map((s) => s.path).sort()).toEqual(['ops.json', 'plugins/leak.yml', 'plugins/linked', 'server.properties', 'spigot.yml', 'world']);
    expect(controller.pushed).toHaveLength(1);
    expectNoSecret(h, controller.pushed[0]!);
    expectOutsideUntouched(h);
  });

  test('a file swapped for a link between the manifest and the upload fails the push instead of sending the link’s target', async () => {
    const { h, work } = hostileWork();
    rmSync(join(work, 'spigot.yml'));
    const controller = fakeController({ files: {} });
    const swapping = async (input: string | URL | Request, init?: RequestInit) => {
      if (String(input).endsWith('/manifest')) {
        rmSync(join(work, 'plugins/ok.yml'));
        symlinkSync(join(h.outside, 'secret.txt'), join(work, 'plugins/ok.yml'));
      }
      return controller.fetch(input, init);
    };
    const error = await pushState({ baseUrl: 'http://controller', token: 't', service: 'Survival-1', dir: work, fetch: swapping, log: recordingLogger() }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain('pushing the state for Survival-1: plugins/ok.yml is a symbolic link');
    for (const body of controller.pushed) expectNoSecret(h, body);
    expectOutsideUntouched(h);
  });

  test('a pull replaces planted links and never writes through them or under a linked folder', async () => {
    const { h, work, fifos } = hostileWork();
    const files = {
      'server.properties': 'motd=canonical\n',
      'spigot.yml': 'settings: {}\n',
      'ops.json': '[]',
      'plugins/linked/new.yml': 'new: 1\n',
      'world/region/r.0.0.mca': 'region',
      'plugins/ok.yml': 'ok: true\n',
    };
    const remote: Manifest = { files: Object.fromEntries(Object.entries(files).map(([rel, text]) => [rel, { sha256: sha256(text), size: text.length }])) };
    const controller = fakeController(remote, files);
    const dog = fifoWatchdog(fifos);
    let summary;
    try {
      summary = await pullState({ baseUrl: 'http://controller', token: 't', service: 'Survival-1', dir: work, fetch: controller.fetch, log: recordingLogger() });
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(summary.downloaded.sort()).toEqual(['ops.json', 'plugins/linked/new.yml', 'server.properties', 'spigot.yml', 'world/region/r.0.0.mca']);
    expect(summary.deleted).toEqual(['level/level.dat']);
    for (const [rel, text] of Object.entries(files)) expect(readFileSync(join(work, rel), 'utf8')).toBe(text);
    for (const rel of ['world', 'plugins/linked']) expect(lstatSync(join(work, rel)).isDirectory()).toBe(true);
    expect(statSync(join(work, 'ops.json')).nlink).toBe(1);
    expectNoSecretUnder(h, work);
    expectOutsideUntouched(h);
  });
});

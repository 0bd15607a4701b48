/** Deploy on stop from a booby-trapped work dir: nothing of the outside reaches the template. */
import { afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { deployBack } from '../../../src/core/templates/deploy-back';
import { readTree, removeTempDirs, writeTree } from './fixtures';
import { expectNoSecretUnder, expectOutsideUntouched, fifoWatchdog, hostileBase, namedFiles, plant, recordingLogger } from './hostile';

afterEach(removeTempDirs);

describe('deploy back from a hostile work dir', () => {
  test('links, FIFOs and hard links are named and left out; the rest lands; the outside is neither read nor touched', async () => {
    const h = hostileBase();
    const templateDir = join(h.base, 'templates', 'lobby');
    writeTree(templateDir, { 'server.properties': 'motd=old\n' });
    const workDir = join(h.base, 'services', 'lobby-1');
    writeTree(workDir, { 'plugins/ok.yml': 'ok: true\n', 'world2/level.dat': 'level', 'start.sh': '#!/bin/sh\n' });
    plant(h, workDir, {
      fileLink: ['server.properties', 'plugins/leak.yml'],
      dirLink: ['world', 'plugins/linked'],
      fifo: ['spigot.yml', 'plugins/pipe'],
      hardlink: ['ops.json', 'plugins/hard.yml'],
    });
    chmodSync(join(workDir, 'start.sh'), 0o4755);
    const log = recordingLogger();
    const dog = fifoWatchdog([join(workDir, 'spigot.yml'), join(workDir, 'plugins/pipe')]);
    let result;
    try {
      result = await deployBack({ workDir, templateDir, excludes: [], log });
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(result.files).toEqual(['plugins/ok.yml', 'start.sh', 'world2/level.dat']);
    expect(readTree(templateDir)).toEqual({ 'server.properties': 'motd=old\n', 'plugins/ok.yml': 'ok: true\n', 'world2/level.dat': 'level', 'start.sh': '#!/bin/sh\n' });
    // A server's set-user-ID file does not become one of svc's user in the template.
    expect(statSync(join(templateDir, 'start.sh')).mode & 0o7777).toBe(0o755);
    expect(namedFiles(log).sort()).toEqual(['ops.json', 'plugins/hard.yml', 'plugins/leak.yml', 'plugins/linked', 'plugins/pipe', 'server.properties', 'spigot.yml', 'world']);
    expectNoSecretUnder(h, templateDir);
    expectOutsideUntouched(h);
  });

  test('only planted entries: nothing changes, the template is not swapped', async () => {
    const h = hostileBase();
    const templateDir = join(h.base, 'templates', 'lobby');
    writeTree(templateDir, { 'a.txt': 'a' });
    const workDir = join(h.base, 'services', 'lobby-1');
    plant(h, workDir, { fileLink: ['a.txt'], dirLink: ['plugins'], hardlink: ['b.txt'] });
    const before = statSync(templateDir).ino;
    expect(await deployBack({ workDir, templateDir, excludes: [], log: recordingLogger() })).toEqual({ filesChanged: 0, files: [] });
    expect(statSync(templateDir).ino).toBe(before);
    expectOutsideUntouched(h);
  });
});

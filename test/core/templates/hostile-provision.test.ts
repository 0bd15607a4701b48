/** Provisioning into a work dir a server has booby-trapped: nothing is written through a link or blocks on a FIFO. */
import { afterEach, describe, expect, test } from 'bun:test';
import { chownSync, lstatSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { provisionStack } from '../../../src/core/templates/provision';
import { readTree, removeTempDirs, writeTree } from './fixtures';
import { expectNoSecretUnder, expectOutsideUntouched, fifoWatchdog, hostileBase, namedFiles, plant, recordingLogger } from './hostile';

afterEach(removeTempDirs);

const TEMPLATE = {
  'server.properties': 'motd=template\n',
  'eula.txt': 'eula=false\n',
  'plugins/a.yml': 'a: 1\n',
  'plugins/b.jar': 'jar',
  'world/level.dat': 'level',
  'config/c.yml': 'c: 1\n',
  'libraries/x/lib.jar': 'lib',
};

function setup() {
  const h = hostileBase();
  const template = join(h.base, 'templates', 'lobby');
  writeTree(template, TEMPLATE);
  const work = join(h.base, 'services', 'lobby-1');
  plant(h, work, { fileLink: ['server.properties'], dirLink: ['plugins', 'world'], fifo: ['eula.txt'], hardlink: ['config/c.yml'] });
  return { h, template, work, dog: fifoWatchdog([join(work, 'eula.txt')]) };
}

describe('provisioning a hostile work dir', () => {
  test('overwrite (dynamic services): every planted entry is replaced, nothing outside is touched', async () => {
    const { h, template, work, dog } = setup();
    try {
      await provisionStack([template], work, { hardlinks: true });
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(readTree(work)).toEqual(TEMPLATE);
    for (const rel of ['plugins', 'world']) expect(lstatSync(join(work, rel)).isDirectory()).toBe(true);
    for (const rel of ['server.properties', 'eula.txt', 'config/c.yml']) expect(lstatSync(join(work, rel)).isFile()).toBe(true);
    expect(statSync(join(work, 'config/c.yml')).ino).not.toBe(statSync(join(h.outside, 'hardlinked.txt')).ino);
    expectOutsideUntouched(h);
    expectNoSecretUnder(h, work);
    expectNoSecretUnder(h, template);
  });

  test('overwrite off (static services): planted entries are kept as they are and never followed', async () => {
    const { h, template, work, dog } = setup();
    let result;
    try {
      result = await provisionStack([template], work, { overwrite: false, hardlinks: true });
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(lstatSync(join(work, 'server.properties')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(work, 'plugins')).isSymbolicLink()).toBe(true);
    expect(lstatSync(join(work, 'eula.txt')).isFIFO()).toBe(true);
    // The planted hard link is the server's own entry: kept, never written into.
    expect(statSync(join(work, 'config/c.yml')).ino).toBe(statSync(join(h.outside, 'hardlinked.txt')).ino);
    expect(readFileSync(join(work, 'libraries/x/lib.jar'), 'utf8')).toBe('lib');
    expect(result.kept).toBe(6);
    expectOutsideUntouched(h);
    expectNoSecretUnder(h, template);
  });

  test('links in the template are named in the log and never copied', async () => {
    const { h, template, work, dog } = setup();
    dog.stop();
    symlinkSync(join(h.outside, 'secret.txt'), join(template, 'leak.txt'));
    symlinkSync(join(h.outside, 'dir'), join(template, 'leak-dir'));
    const log = recordingLogger();
    const result = await provisionStack([template], join(h.base, 'services', 'fresh-1'), { log });
    expect(result.skipped.sort()).toEqual([join(template, 'leak-dir'), join(template, 'leak.txt')]);
    expect(namedFiles(log).sort()).toEqual([join(template, 'leak-dir'), join(template, 'leak.txt')]);
    expectNoSecretUnder(h, join(h.base, 'services', 'fresh-1'));
    expectOutsideUntouched(h);
  });

  test.if(process.geteuid?.() === 0)('a work dir of another user: placed copies and folders become that user’s', async () => {
    const { h, template, work, dog } = setup();
    dog.stop();
    chownSync(work, 4321, 4321);
    await provisionStack([template], work, { hardlinks: false });
    for (const rel of ['server.properties', 'plugins', 'plugins/a.yml', 'libraries/x/lib.jar']) expect(lstatSync(join(work, rel)).uid).toBe(4321);
    expectOutsideUntouched(h);
  });
});

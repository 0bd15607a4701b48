/** A modpack laid into a dedicated directory a server booby-trapped: nothing created or replaced through a link. */
import { afterEach, describe, expect, test } from 'bun:test';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dedicated } from '../../../src/core/dedicated/model';
import { installIntoDedicated, type DedicatedInstallDeps } from '../../../src/core/modpacks/install-dedicated';
import type { Runtime } from '../../../src/core/modpacks/runtime';
import { removeTempDirs, writeTree } from '../templates/fixtures';
import { expectNoSecretUnder, expectOutsideUntouched, fifoWatchdog, hostileBase, plant } from '../templates/hostile';

afterEach(removeTempDirs);

function deps(dir: string): DedicatedInstallDeps {
  const config = { name: 'Modded', software: 'FABRIC', version: '1.21.4' } as unknown as Dedicated;
  const dedicated = { require: () => config, directoryOf: () => dir, update: (_: string, patch: Partial<Dedicated>) => ({ ...config, ...patch }) };
  return { dedicated, groups: { list: () => [] } } as unknown as DedicatedInstallDeps;
}

describe('modpack install into a hostile dedicated directory', () => {
  test('a linked mods folder is removed (not emptied through), a linked config folder is left alone and reported', async () => {
    const h = hostileBase();
    const dir = join(h.base, 'dedicated', 'Modded');
    writeTree(dir, { 'world/level.dat': 'my world' });
    plant(h, dir, { dirLink: ['mods', 'config'], fileLink: ['server.properties'], fifo: ['options.txt'], hardlink: ['eula.txt'] });
    const stage = join(h.base, 'stage');
    writeTree(stage, { 'mods/a.jar': 'mod a', 'config/a.toml': 'a = 1', 'server.properties': 'motd=pack', 'eula.txt': 'eula=true', 'options.txt': 'opts', 'world/level.dat': 'pack world' });
    const dog = fifoWatchdog([join(dir, 'options.txt')]);
    let done;
    try {
      done = await installIntoDedicated(stage, 'Modded', { software: 'FABRIC', version: '1.21.4' } as Runtime, true, deps(dir));
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(done.skipped).toEqual([{ path: 'config/a.toml', reason: 'config is a symbolic link (svc never follows links in a service directory): nothing is written through it' }]);
    expect(done.moved).toBe(5);
    expect(lstatSync(join(dir, 'mods')).isDirectory()).toBe(true);
    expect(lstatSync(join(dir, 'config')).isSymbolicLink()).toBe(true);
    for (const [rel, text] of Object.entries({ 'mods/a.jar': 'mod a', 'server.properties': 'motd=pack', 'eula.txt': 'eula=true', 'options.txt': 'opts', 'world/level.dat': 'pack world' })) {
      expect(readFileSync(join(dir, rel), 'utf8')).toBe(text);
    }
    expectNoSecretUnder(h, dir);
    expectOutsideUntouched(h);
  });
});

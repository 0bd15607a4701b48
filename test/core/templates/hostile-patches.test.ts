/** The per-service patches on a booby-trapped work dir: links replaced or refused, never read or written through. */
import { afterEach, describe, expect, test } from 'bun:test';
import { lstatSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setServerPort } from '../../../src/core/dedicated/directory';
import { applyServicePatches, patchProxy } from '../../../src/core/templates/patches';
import { removeTempDirs } from './fixtures';
import { expectNoSecretUnder, expectOutsideUntouched, fifoWatchdog, hostileBase, namedFiles, plant, recordingLogger } from './hostile';

afterEach(removeTempDirs);

describe('patching a hostile work dir', () => {
  test('backend: a linked server.properties, a hard-linked eula.txt and a FIFO spigot.yml are replaced, not followed', () => {
    const h = hostileBase();
    const work = join(h.base, 'lobby-1');
    plant(h, work, { fileLink: ['server.properties'], hardlink: ['eula.txt'], fifo: ['spigot.yml'], dirLink: ['config'] });
    const log = recordingLogger();
    const dog = fifoWatchdog([join(work, 'spigot.yml')]);
    let written: string[];
    try {
      written = applyServicePatches(work, { software: 'PAPER', port: 30001, forwarding: 'legacy', secret: 's', log });
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(written.sort()).toEqual(['eula.txt', 'server.properties', 'spigot.yml']);
    expect(readFileSync(join(work, 'server.properties'), 'utf8')).toBe('server-port=30001\nonline-mode=false\n');
    expect(readFileSync(join(work, 'eula.txt'), 'utf8')).toContain('eula=true');
    expect(readFileSync(join(work, 'spigot.yml'), 'utf8')).toContain('bungeecord: true');
    for (const rel of ['server.properties', 'eula.txt', 'spigot.yml']) {
      expect(lstatSync(join(work, rel)).isFile()).toBe(true);
      expect(statSync(join(work, rel)).nlink).toBe(1);
    }
    // The legacy patch only touches an existing paper-global.yml: behind a link, there is none.
    expect(lstatSync(join(work, 'config')).isSymbolicLink()).toBe(true);
    expect(namedFiles(log).sort()).toEqual(['config', 'eula.txt', 'server.properties', 'spigot.yml']);
    expectOutsideUntouched(h);
    expectNoSecretUnder(h, work);
  });

  test('backend, modern forwarding: `config -> outside` is refused with its name, nothing written there', () => {
    const h = hostileBase();
    const work = join(h.base, 'lobby-1');
    plant(h, work, { dirLink: ['config'] });
    expect(() => applyServicePatches(work, { software: 'PAPER', port: 30001, forwarding: 'modern', secret: 'the-secret', log: recordingLogger() })).toThrow(/config\/paper-global.yml .*config is a symbolic link/);
    expectOutsideUntouched(h);
    expectNoSecretUnder(h, work);
  });

  test('proxy: a linked velocity.toml and a hard-linked forwarding.secret are replaced', () => {
    const h = hostileBase();
    const work = join(h.base, 'proxy-1');
    plant(h, work, { fileLink: ['velocity.toml'], hardlink: ['forwarding.secret'] });
    const log = recordingLogger();
    patchProxy(work, { port: 25565, forwarding: 'modern', servers: [{ name: 'lobby-1', host: '127.0.0.1', port: 30001 }], secret: 'net-secret' }, log);
    expect(readFileSync(join(work, 'velocity.toml'), 'utf8')).toContain('lobby-1 = "127.0.0.1:30001"');
    expect(readFileSync(join(work, 'forwarding.secret'), 'utf8')).toBe('net-secret');
    expect(statSync(join(work, 'forwarding.secret')).mode & 0o777).toBe(0o600);
    expect(namedFiles(log)).toEqual(['velocity.toml']);
    expectOutsideUntouched(h);
    expectNoSecretUnder(h, work);
  });

  test('dedicated directory: a FIFO or link as server.properties is replaced without blocking', () => {
    const h = hostileBase();
    const fifoDir = join(h.base, 'survival');
    const linkDir = join(h.base, 'creative');
    plant(h, fifoDir, { fifo: ['server.properties'] });
    plant(h, linkDir, { fileLink: ['server.properties'], hardlink: ['eula.txt'] });
    const dog = fifoWatchdog([join(fifoDir, 'server.properties')]);
    try {
      setServerPort(fifoDir, 25570);
      setServerPort(linkDir, 25571);
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(readFileSync(join(fifoDir, 'server.properties'), 'utf8')).toBe('server-port=25570\n');
    expect(readFileSync(join(linkDir, 'server.properties'), 'utf8')).toBe('server-port=25571\n');
    expectOutsideUntouched(h);
    expectNoSecretUnder(h, fifoDir);
    expectNoSecretUnder(h, linkDir);
  });
});

/** Proxy jar updates in a dedicated proxy's directory a server booby-trapped: no jar hashed or written through a link, no FIFO opened. */
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ProxyUpdates } from '../../../../src/core/proxy/updates';
import { fakePaperMc } from '../../../fixtures/upstream/papermc';
import { digest, fakeJar } from '../../../fixtures/upstream/serve';
import { removeTempDirs } from '../../templates/fixtures';
import { expectOutsideUntouched, fifoWatchdog, hostileBase, plant } from '../../templates/hostile';
import { network, updater, type Network } from './support';

const BUILD_500 = fakeJar('velocity 3.4.0-SNAPSHOT build 500');
const papermc = fakePaperMc({ velocity: { versions: { '3.0.0': ['3.4.0-SNAPSHOT', '3.3.0-SNAPSHOT'] }, builds: { '3.4.0-SNAPSHOT': [{ id: 500, jar: BUILD_500 }] } } });
afterAll(() => papermc.close());

let net: Network;
let updates: ProxyUpdates | undefined;
beforeEach(() => (net = network()));
afterEach(() => {
  updates?.stop();
  updates = undefined;
  net.remove();
  removeTempDirs();
});

describe('proxy jar updates in a hostile dedicated directory', () => {
  test('a jar planted as a link, a FIFO or a hard link is never hashed (so it counts as no jar) nor opened', async () => {
    const h = hostileBase();
    net.dedicated.create({ name: 'Linked', port: 25577, software: 'VELOCITY', version: '3.4.0-SNAPSHOT' });
    net.dedicated.create({ name: 'Piped', port: 25578, software: 'VELOCITY', version: '3.4.0-SNAPSHOT' });
    net.dedicated.create({ name: 'Shared', port: 25579, software: 'VELOCITY', version: '3.4.0-SNAPSHOT' });
    plant(h, net.dedicated.directoryOf('Linked'), { fileLink: ['server.jar'] });
    plant(h, net.dedicated.directoryOf('Piped'), { fifo: ['server.jar'] });
    plant(h, net.dedicated.directoryOf('Shared'), { hardlink: ['server.jar'] });
    const dog = fifoWatchdog([join(net.dedicated.directoryOf('Piped'), 'server.jar')]);
    try {
      updates = updater(net, papermc.url);
      const results = await updates.checkNow({ apply: true });
      // Read through the link, the secret's hash would differ from the release and trigger a swap.
      expect(results.map((r) => [r.name, r.outcome])).toEqual([
        ['Linked', 'current'],
        ['Piped', 'current'],
        ['Shared', 'current'],
      ]);
    } finally {
      expect(dog.stop()).toBe(false);
    }
    expect(lstatSync(join(net.dedicated.directoryOf('Linked'), 'server.jar')).isSymbolicLink()).toBe(true);
    expectOutsideUntouched(h);
  });

  test('an update replaces a planted link with the new jar, never writing through it', async () => {
    const h = hostileBase();
    net.dedicated.create({ name: 'Edge', port: 25577, software: 'VELOCITY', version: '3.3.0-SNAPSHOT' });
    plant(h, net.dedicated.directoryOf('Edge'), { fileLink: ['server.jar'] });
    updates = updater(net, papermc.url);
    const [result] = await updates.checkNow({ apply: true });
    expect(result).toMatchObject({ name: 'Edge', outcome: 'applied' });
    const jar = join(net.dedicated.directoryOf('Edge'), 'server.jar');
    expect(lstatSync(jar).isFile()).toBe(true);
    expect(digest('sha256', readFileSync(jar))).toBe(digest('sha256', BUILD_500));
    expectOutsideUntouched(h);
  });

  test('a jar whose folder is a link is not replaced: the update fails naming it, nothing lands outside', async () => {
    const h = hostileBase();
    net.dedicated.create({ name: 'Edge', port: 25577, software: 'VELOCITY', version: '3.3.0-SNAPSHOT', jarName: 'bin/velocity.jar' });
    plant(h, net.dedicated.directoryOf('Edge'), { dirLink: ['bin'] });
    updates = updater(net, papermc.url);
    const [result] = await updates.checkNow({ apply: true });
    expect(result).toMatchObject({ name: 'Edge', outcome: 'failed' });
    expect(result!.message).toContain('bin is a symbolic link');
    expect(net.dedicated.get('Edge')!.version).toBe('3.3.0-SNAPSHOT');
    expectOutsideUntouched(h);
  });
});

/**
 * A restore replaces the target whole, except the names it is told to keep: a live service's
 * supervisor folder (`.svc`: its FIFO, pid and console log) is the running process's, not the backup's.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createArchive } from '../../../src/modules/backup/archive';
import { restoreArchive } from '../../../src/modules/backup/restore';
import { tempDir } from '../../support/controller';

const temp = tempDir('svc-restore-keep-');
afterAll(() => temp.remove());

describe('restore keep', () => {
  test('kept names of the old target survive the swap; everything else is the archive', async () => {
    const source = join(temp.dir, 'source');
    mkdirSync(join(source, 'world'), { recursive: true });
    writeFileSync(join(source, 'world/level.dat'), 'backed up');
    const archive = join(temp.dir, 'service.tar.zst');
    await createArchive(source, archive, { level: 3, workers: 1, excludes: [] });

    const target = join(temp.dir, 'Lobby-1');
    mkdirSync(join(target, '.svc'), { recursive: true });
    mkdirSync(join(target, 'world'), { recursive: true });
    writeFileSync(join(target, '.svc/server.pid'), '4242');
    writeFileSync(join(target, 'world/level.dat'), 'changed since');
    writeFileSync(join(target, 'stray.txt'), 'added since');

    await restoreArchive(archive, target, { dryRun: false, keep: ['.svc'] });
    expect(readFileSync(join(target, 'world/level.dat'), 'utf8')).toBe('backed up');
    expect(existsSync(join(target, 'stray.txt'))).toBe(false);
    expect(readFileSync(join(target, '.svc/server.pid'), 'utf8')).toBe('4242');

    // Without keep, the restore is the archive alone.
    await restoreArchive(archive, target, { dryRun: false });
    expect(existsSync(join(target, '.svc'))).toBe(false);
  });
});

import { afterAll, describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GroupStore } from '../../../src/core/groups/store';
import { Maintenance } from '../../../src/core/maintenance/maintenance';
import { EventBus } from '../../../src/events/bus';
import { createLogger } from '../../../src/log';
import { tempDir } from '../../support/controller';

/**
 * The maintenance whitelist keeps names as the operator typed them and matches them ignoring
 * case; a file written when names were stored lower-case keeps working unchanged.
 */
const tmp = tempDir('svc-whitelist-');
afterAll(() => tmp.remove());
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });
const groups = new GroupStore(join(tmp.dir, 'groups'));
groups.load();

const open = (file: string) => new Maintenance({ file, bus: new EventBus(), groups, log });

describe('the maintenance whitelist', () => {
  test('keeps the case typed, matches and removes ignoring it, and never holds one name twice', () => {
    const file = join(tmp.dir, 'typed.toml');
    const m = open(file);
    expect(m.whitelistAdd('Notch')).toBe(true);
    expect(m.whitelistAdd('NOTCH')).toBe(false);
    expect(m.whitelistAdd('notch')).toBe(false);
    expect(m.status().global.whitelist).toEqual(['Notch']);
    expect(m.isWhitelisted('notch')).toBe(true);
    expect(m.isWhitelisted('NoTcH')).toBe(true);
    expect(m.isWhitelisted('jeb_')).toBe(false);
    // What the file says after a restart.
    expect(open(file).status().global.whitelist).toEqual(['Notch']);
    expect(readFileSync(file, 'utf8')).toContain('"Notch"');
    expect(m.whitelistRemove('nOTCH')).toBe(true);
    expect(m.whitelistRemove('Notch')).toBe(false);
    expect(m.status().global.whitelist).toEqual([]);
  });

  test('a uuid is stored dashed lower-case however it was typed', () => {
    const m = open(join(tmp.dir, 'uuid.toml'));
    const uuid = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
    expect(m.whitelistAdd(uuid.replace(/-/g, '').toUpperCase())).toBe(true);
    expect(m.whitelistAdd(uuid)).toBe(false);
    expect(m.status().global.whitelist).toEqual([uuid]);
    expect(m.isWhitelisted(uuid.toUpperCase())).toBe(true);
  });

  test('entries stored lower-case by an older version still match, dedupe and remove', () => {
    const file = join(tmp.dir, 'older.toml');
    writeFileSync(file, '[global]\nwhitelist = ["notch", "alice"]\n');
    const m = open(file);
    expect(m.isWhitelisted('Notch')).toBe(true);
    expect(m.whitelistAdd('Notch')).toBe(false);
    expect(m.whitelistRemove('ALICE')).toBe(true);
    expect(m.status().global.whitelist).toEqual(['notch']);
  });
});

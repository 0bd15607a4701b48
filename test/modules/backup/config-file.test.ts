/**
 * backup.toml is rendered from its schema and words (src/modules/backup/toml-text.ts). The
 * golden files next to this were written by the hand-laid renderer it replaced, from the values
 * in golden/values.ts: every save must still give those bytes.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseBackupToml, renderBackupToml, type BackupConfig } from '../../../src/modules/backup/config';
import { GOLDEN_VALUES } from './golden/values';

const golden = (name: string) => readFileSync(join(import.meta.dir, 'golden', `${name}.toml`), 'utf8');

describe('backup.toml rendered from its schema', () => {
  test.each(Object.keys(GOLDEN_VALUES))('%s: the bytes the hand-laid renderer wrote', (name) => {
    expect(renderBackupToml(GOLDEN_VALUES[name]!)).toBe(golden(name));
  });

  test('a value built in another key order gives the same file', () => {
    const value = GOLDEN_VALUES.custom!;
    const reversed = Object.fromEntries(Object.entries(structuredClone(value)).reverse()) as BackupConfig;
    reversed.schedules = reversed.schedules.map((s) => Object.fromEntries(Object.entries(s).reverse()) as BackupConfig['schedules'][number]);
    expect(renderBackupToml(reversed)).toBe(golden('custom'));
  });

  test.each(['defaults', 'bare', 'single'])('%s: the file reads back as the value', (name) => {
    expect(parseBackupToml(golden(name))).toEqual({ ok: true, config: GOLDEN_VALUES[name]! });
  });
});

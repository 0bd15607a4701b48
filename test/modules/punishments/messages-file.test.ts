/**
 * messages.toml is rendered from MessagesSchema and its header. The golden files next to this
 * were written by the writer it replaced (the header over smol-toml's stringify), from
 * golden/values.ts: every save must still give those bytes.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readMessages, renderMessagesToml, writeMessages, type MessageTemplates } from '../../../src/modules/punishments/messages';
import { GOLDEN_VALUES } from './golden/values';

const golden = (name: string) => readFileSync(join(import.meta.dir, 'golden', `${name}.toml`), 'utf8');

describe('messages.toml rendered from its schema', () => {
  test.each(Object.keys(GOLDEN_VALUES))('%s: the bytes the writer before wrote, written and read back', (name) => {
    const templates = GOLDEN_VALUES[name]!;
    expect(renderMessagesToml(templates)).toBe(golden(name));
    const dir = mkdtempSync(join(tmpdir(), 'svc-messages-'));
    try {
      const file = join(dir, 'messages.toml');
      writeMessages(file, templates, undefined);
      expect(readFileSync(file, 'utf8')).toBe(golden(name));
      expect(readMessages(file)).toEqual({ templates });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('templates built in another key order give the same file', () => {
    const reversed = Object.fromEntries(Object.entries(GOLDEN_VALUES.custom!).reverse()) as MessageTemplates;
    expect(renderMessagesToml(reversed)).toBe(golden('custom'));
  });
});

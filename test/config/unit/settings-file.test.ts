import { afterAll, describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { SettingsFile } from '../../../src/config/unit/settings-file';
import { createLogger } from '../../../src/log';

const root = mkdtempSync(join(tmpdir(), 'svc-settings-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const lines: string[] = [];
const log = createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => void lines.push(line) } });

const Group = Type.Object({ kickMessage: Type.String({ default: 'bye' }), maxPlayers: Type.Integer({ minimum: -1, default: -1 }) }, { default: {} });
const Schema = Type.Object({
  motd: Type.Object({ lineOne: Type.String({ maxLength: 20, default: 'hello' }) }, { default: {} }),
  servers: Type.Record(Type.String(), Group, { default: {} }),
});

function settings(text?: string): SettingsFile<typeof Schema> {
  const dir = join(root, `case-${++counter}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'settings.toml');
  if (text !== undefined) writeFileSync(file, text);
  return new SettingsFile(file, Schema, 'Settings.\nTwo lines.', log);
}

describe('SettingsFile', () => {
  test('a missing file is the defaults and is not written', () => {
    const s = settings();
    expect(s.load()).toEqual({ motd: { lineOne: 'hello' }, servers: {} });
    expect(existsSync(s.file)).toBe(false);
  });

  test('saved snake_case with the header commented; names (record keys) keep their spelling; read back equal', () => {
    const s = settings();
    const value = { motd: { lineOne: 'hi' }, servers: { LobbyMain: { kickMessage: 'closed', maxPlayers: 5 } } };
    s.save(value);
    const text = readFileSync(s.file, 'utf8');
    expect(text.startsWith('# Settings.\n# Two lines.\n\n')).toBe(true);
    expect(parse(text)).toEqual({ motd: { line_one: 'hi' }, servers: { LobbyMain: { kick_message: 'closed', max_players: 5 } } });
    expect(s.load()).toEqual(value);
  });

  test('a hand-written file: missing keys take defaults, inside a named entry too', () => {
    const s = settings('[servers.Survival_2]\nmax_players = 3\n');
    expect(s.load()).toEqual({ motd: { lineOne: 'hello' }, servers: { Survival_2: { kickMessage: 'bye', maxPlayers: 3 } } });
  });

  test('a bad value: the defaults, the log names the file and the key; the next save keeps the bad file aside', () => {
    const s = settings('[motd]\nline_one = 7\n');
    lines.length = 0;
    expect(s.load()).toEqual({ motd: { lineOne: 'hello' }, servers: {} });
    expect(lines.join('')).toContain(`${s.file}: \\"motd.line_one\\" must be a string of at most 20 characters, got 7`);
    s.save(s.defaults());
    expect(readFileSync(`${s.file}.broken`, 'utf8')).toBe('[motd]\nline_one = 7\n');
    expect(s.load()).toEqual(s.defaults());
  });

  test('malformed TOML: the defaults, and the log says where', () => {
    const s = settings('[motd\n');
    lines.length = 0;
    expect(s.load()).toEqual(s.defaults());
    expect(lines.join('')).toMatch(/not valid TOML: .+ at line 1, column \d+/);
  });
});

import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { formatRemaining } from '../../../src/modules/punishments/duration';
import { MESSAGE_DEFAULTS, MESSAGE_KEYS, MessageBook, readMessages, renderMessage, type MessageValues } from '../../../src/modules/punishments/messages';

const NOW = Date.parse('2030-01-01T00:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const values = (over: Partial<MessageValues> = {}): MessageValues => ({ type: 'TEMPBAN', target: 'Steve', issuer: 'Alex', reason: 'griefing', expiresAt: NOW + 7 * DAY + 12 * HOUR + 5 * MINUTE, now: NOW, ...over });

const root = mkdtempSync(join(tmpdir(), 'svc-punish-messages-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
/** A fresh directory per test; the file inside it does not exist yet. */
const freshFile = () => join(root, `case-${++dirs}`, 'config', 'modules', 'punishments', 'messages.toml');
function fileWith(text: string): string {
  const dir = join(root, `case-${++dirs}`);
  mkdirSync(dir);
  const file = join(dir, 'messages.toml');
  writeFileSync(file, text);
  return file;
}

describe('renderMessage', () => {
  test('fills every placeholder', () => {
    const text = renderMessage('{type}|{target}|{issuer}|{reason}|{duration}|{remaining}|{expires}', values());
    expect(text).toBe('tempban|Steve|Alex|griefing|7d 12h 5m|7d 12h 5m|2030-01-08T12:05:00.000Z');
  });

  test('a permanent record: duration and remaining are "permanent", expires is "never"', () => {
    expect(renderMessage('{duration}/{remaining}/{expires}', values({ type: 'BAN', expiresAt: null }))).toBe('permanent/permanent/never');
  });

  test('a placeholder used twice is filled twice', () => {
    expect(renderMessage('{target} {target}', values())).toBe('Steve Steve');
  });

  test.each(['', '   ', '\t'])('reason %p reads "No reason given"', (reason) => {
    expect(renderMessage('Reason: {reason}', values({ reason }))).toBe('Reason: No reason given');
  });

  test('{expires} is ISO-8601 UTC', () => {
    expect(renderMessage('{expires}', values({ expiresAt: Date.parse('2031-06-01T12:34:56.789Z') }))).toBe('2031-06-01T12:34:56.789Z');
  });

  test.each([1, 30_000, 59_500, 60_000, 2 * HOUR, 7 * DAY + 12 * HOUR + 5 * MINUTE, -5000])('{duration} and {remaining} agree %p ms before the end', (left) => {
    const v = values({ expiresAt: NOW + left });
    expect(renderMessage('{duration}', v)).toBe(renderMessage('{remaining}', v));
    expect(renderMessage('{remaining}', v)).toBe(formatRemaining(left));
  });

  test('values are inserted literally: no placeholder, replacement pattern or second pass', () => {
    const v = values({ reason: '{issuer} $& $1 $$', target: '{reason}' });
    expect(renderMessage('{target}: {reason}', v)).toBe('{reason}: {issuer} $& $1 $$');
  });

  test('unknown and differently cased placeholders stay as written', () => {
    expect(renderMessage('{name} {Reason} {REASON} { reason }', values())).toBe('{name} {Reason} {REASON} { reason }');
  });

  const codes = '0123456789abcdefklmnorx';
  test.each([...codes, ...codes.toUpperCase()])('&%s becomes a § code', (code) => {
    expect(renderMessage(`a&${code}b`, values())).toBe(`a§${code}b`);
  });

  const kept: [string, string][] = [
    ['Tom & Jerry', 'Tom & Jerry'],
    ['&g &z &p &s &y &#', '&g &z &p &s &y &#'],
    ['trailing &', 'trailing &'],
    ['&&c', '&§c'],
    ['&c&lBold red', '§c§lBold red'],
    ['&', '&'],
  ];
  test.each(kept)('%p renders as %p', (template, expected) => {
    expect(renderMessage(template, values())).toBe(expected);
  });

  test('codes in the reason become § codes too; a plain & in it stays', () => {
    expect(renderMessage('{reason}', values({ reason: '&4red & plain' }))).toBe('§4red & plain');
  });

  test.each(MESSAGE_KEYS)('the default %s template leaves no placeholder or & code behind', (key) => {
    const text = renderMessage(MESSAGE_DEFAULTS[key], values());
    expect(text).not.toMatch(/\{(type|target|issuer|reason|duration|remaining|expires)\}/);
    expect(text).not.toMatch(/&[0-9a-fk-orx]/i);
  });
});

describe('readMessages', () => {
  test('a missing file gives the defaults and no problem', () => {
    const loaded = readMessages(freshFile());
    expect(loaded.templates).toEqual({ ...MESSAGE_DEFAULTS });
    expect(loaded.problem).toBeUndefined();
  });

  test('an empty file gives the defaults and no problem', () => {
    const loaded = readMessages(fileWith(''));
    expect(loaded.templates).toEqual({ ...MESSAGE_DEFAULTS });
    expect(loaded.problem).toBeUndefined();
  });

  test('a partial file: its keys are used, the rest take their defaults', () => {
    const loaded = readMessages(fileWith('# hand edit\nban = "custom ban {reason}"\nwarn = """\nline one\nline two"""\n'));
    expect(loaded.templates).toEqual({ ...MESSAGE_DEFAULTS, ban: 'custom ban {reason}', warn: 'line one\nline two' });
    expect(loaded.problem).toBeUndefined();
  });

  test('an empty string is a template like any other', () => {
    expect(readMessages(fileWith('kick = ""\n')).templates.kick).toBe('');
  });

  test.each([
    ['an unterminated string on line 1', 'ban = "unterminated\n', 1],
    ['a missing value on line 3', 'ban = "a"\nmute = "b"\nkick = \n', 3],
    ['a broken table header on line 2', 'ban = "a"\n[oops\n', 2],
  ])('invalid TOML (%s): the defaults, and a problem naming the line', (_name, text, line) => {
    const loaded = readMessages(fileWith(text));
    expect(loaded.templates).toEqual({ ...MESSAGE_DEFAULTS });
    expect(loaded.problem).toMatch(new RegExp(`^not valid TOML: .+ at line ${line}, column \\d+$`));
    // One line, without smol-toml's code excerpt.
    expect(loaded.problem).not.toContain('\n');
  });

  test.each([
    ['a number', 'mute = 5\n', 'mute', 'got 5'],
    ['a boolean', 'ban = "fine"\nkick = true\n', 'kick', 'got true'],
    ['an array', 'warn = ["a", "b"]\n', 'warn', 'got ["a","b"]'],
    ['a table', '[tempban]\ntext = "x"\n', 'tempban', 'got {"text":"x"}'],
    ['too long a string', `ipban = "${'x'.repeat(2049)}"\n`, 'ipban', 'got "xxx'],
  ])('a value of the wrong type (%s): the defaults, and a problem naming the key', (_name, text, key, got) => {
    const loaded = readMessages(fileWith(text));
    expect(loaded.templates).toEqual({ ...MESSAGE_DEFAULTS });
    expect(loaded.problem).toStartWith(`${key} must be a string of at most 2048 characters`);
    expect(loaded.problem).toContain(got);
  });

  test('a 2048-character template is accepted', () => {
    const long = 'y'.repeat(2048);
    const loaded = readMessages(fileWith(`ipban = "${long}"\n`));
    expect(loaded.problem).toBeUndefined();
    expect(loaded.templates.ipban).toBe(long);
  });

  test('an unknown key: a problem naming it, and the known keys are still used', () => {
    const loaded = readMessages(fileWith('ban = "custom"\nbna = "typo"\n[extra]\nx = 1\n'));
    expect(loaded.templates).toEqual({ ...MESSAGE_DEFAULTS, ban: 'custom' });
    expect(loaded.problem).toContain('unknown key(s) bna, extra');
    expect(loaded.problem).toContain(MESSAGE_KEYS.join(', '));
  });
});

describe('MessageBook', () => {
  test('first construction writes the file with every key, readable back by smol-toml', () => {
    const file = freshFile();
    const book = new MessageBook(file);
    expect(existsSync(file)).toBe(true);
    expect(book.path).toBe(file);
    expect(book.fileProblem()).toBeUndefined();
    expect(book.templates()).toEqual({ ...MESSAGE_DEFAULTS });
    const text = readFileSync(file, 'utf8');
    expect(text.startsWith('# ')).toBe(true);
    expect(parse(text)).toEqual({ ...MESSAGE_DEFAULTS });
    expect(readMessages(file)).toEqual({ templates: { ...MESSAGE_DEFAULTS } });
  });

  test('an existing file is read, not rewritten', () => {
    const text = '# mine\nmute = "hand written"\n';
    const file = fileWith(text);
    const book = new MessageBook(file);
    expect(book.templates()).toEqual({ ...MESSAGE_DEFAULTS, mute: 'hand written' });
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  test('update changes only the keys sent, keeps the others, and answers every template', () => {
    const file = fileWith('mute = "hand written"\n');
    const book = new MessageBook(file);
    const answered = book.update({ ban: 'new ban', kick: 'new kick' });
    const expected = { ...MESSAGE_DEFAULTS, mute: 'hand written', ban: 'new ban', kick: 'new kick' };
    expect(answered).toEqual(expected);
    expect(book.templates()).toEqual(expected);
    expect(parse(readFileSync(file, 'utf8'))).toEqual(expected);
    expect(existsSync(`${file}.broken`)).toBe(false);
  });

  test('an empty update changes nothing but writes every key', () => {
    const file = fileWith('warn = "w"\n');
    const book = new MessageBook(file);
    expect(book.update({})).toEqual({ ...MESSAGE_DEFAULTS, warn: 'w' });
    expect(parse(readFileSync(file, 'utf8'))).toEqual({ ...MESSAGE_DEFAULTS, warn: 'w' });
  });

  test('updates persist: a new MessageBook on the same file reads them back exactly', () => {
    const file = freshFile();
    const hostile = 'line 1\nline "2"\t\\ \'3\' ⚠ §c {reason} """ \u0001 end';
    new MessageBook(file).update({ tempmute: hostile, broadcast_revoked: '' });
    new MessageBook(file).update({ ban: 'second' });
    const reread = new MessageBook(file);
    expect(reread.fileProblem()).toBeUndefined();
    expect(reread.templates()).toEqual({ ...MESSAGE_DEFAULTS, tempmute: hostile, broadcast_revoked: '', ban: 'second' });
  });

  test('a broken file: the defaults stand in, the file is left alone until an update, which keeps it as messages.toml.broken', () => {
    const broken = 'ban = "my carefully written ban\nmute = "x"\n';
    const file = fileWith(broken);
    const book = new MessageBook(file);
    expect(book.fileProblem()).toMatch(/^not valid TOML: .+ at line 1, column \d+$/);
    expect(book.templates()).toEqual({ ...MESSAGE_DEFAULTS });
    expect(readFileSync(file, 'utf8')).toBe(broken);
    expect(existsSync(`${file}.broken`)).toBe(false);

    expect(book.update({ kick: 'k' })).toEqual({ ...MESSAGE_DEFAULTS, kick: 'k' });
    expect(readFileSync(`${file}.broken`, 'utf8')).toBe(broken);
    expect(parse(readFileSync(file, 'utf8'))).toEqual({ ...MESSAGE_DEFAULTS, kick: 'k' });
    expect(book.fileProblem()).toBeUndefined();
    expect(new MessageBook(file).templates()).toEqual({ ...MESSAGE_DEFAULTS, kick: 'k' });
  });

  test('a file with a wrong type is kept as messages.toml.broken on update too', () => {
    const wrong = 'ban = 42\n';
    const file = fileWith(wrong);
    const book = new MessageBook(file);
    expect(book.fileProblem()).toStartWith('ban must be a string');
    book.update({ warn: 'w' });
    expect(readFileSync(`${file}.broken`, 'utf8')).toBe(wrong);
    expect(new MessageBook(file).templates()).toEqual({ ...MESSAGE_DEFAULTS, warn: 'w' });
  });
});

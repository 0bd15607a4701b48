import { afterAll, describe, expect, test } from 'bun:test';
import { Type as T } from '@sinclair/typebox';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { ConfigError } from '../../../src/config/unit/config-error';
import { SectionsFile } from '../../../src/config/unit/sections-file';
import { asStatic } from '../../../src/config/unit/sections';

const root = mkdtempSync(join(tmpdir(), 'svc-sections-file-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
/** A path in a folder that does not exist yet. */
const freshPath = () => join(root, `case-${++counter}`, 'notes', 'notes.toml');
function fileWith(text: string): string {
  const path = freshPath();
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const Schema = T.Object({
  notes: T.Object({
    max_length: T.Integer({ minimum: 1, maximum: 500, default: 140, description: 'longest note in characters' }),
    title: T.String({ default: 'Notes "quoted"', description: 'shown above the list' }),
    tags: T.Array(T.String(), { default: ['a', 'b'], description: 'tags offered' }),
  }),
  limits: T.Object({
    enabled: T.Boolean({ default: true, description: 'limits apply' }),
  }),
});
const unit = new SectionsFile({ schema: Schema, title: 'Notes module configuration' });
const DEFAULTS = { notes: { max_length: 140, title: 'Notes "quoted"', tags: ['a', 'b'] }, limits: { enabled: true } };

describe('defaults and the rendered file', () => {
  test('defaults come from the schema, a fresh object each time', () => {
    const first = unit.defaults();
    expect(first).toEqual(DEFAULTS);
    first.notes.tags.push('c');
    expect(unit.defaults()).toEqual(DEFAULTS);
  });

  test('the rendered file holds every key at its default, after its description, and reads back as the defaults', () => {
    const text = unit.render();
    expect(text.startsWith('# Notes module configuration\n')).toBe(true);
    expect(text).toContain('# longest note in characters\nmax_length = 140\n');
    expect(text).toContain('# limits apply\nenabled = true\n');
    expect(parse(text)).toEqual(DEFAULTS);
    expect(unit.parse(text, 'notes.toml')).toEqual({ value: DEFAULTS, warnings: [] });
  });

  test('a given default text wins over the rendered one', () => {
    const custom = new SectionsFile({ schema: Schema, title: 'x', defaultText: '# hand laid out\n[notes]\nmax_length = 140\n' });
    expect(custom.render()).toBe('# hand laid out\n[notes]\nmax_length = 140\n');
  });
});

describe('load', () => {
  test('a missing file is written (folders too) and read as the defaults; a second load leaves it as it is', () => {
    const path = freshPath();
    const first = unit.load(path);
    expect(first.created).toBe(true);
    expect(first.value).toEqual(DEFAULTS);
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(unit.render());
    const second = unit.load(path);
    expect(second.created).toBe(false);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(join(path, '..'))).toEqual(['notes.toml']);
  });

  test('a partial file: what it says, defaults for the rest', () => {
    const { value, warnings } = unit.load(fileWith('[notes]\nmax_length = 20\n'));
    expect(value).toEqual({ ...DEFAULTS, notes: { ...DEFAULTS.notes, max_length: 20 } });
    expect(warnings).toEqual([]);
  });

  test('unknown sections and keys are warnings naming the file, with a suggestion when one is close', () => {
    const path = fileWith('stray = 1\n[notes]\nmax_lenght = 20\n[limit]\nenabled = false\n');
    const { value, warnings } = unit.load(path);
    expect(value).toEqual(DEFAULTS);
    expect(warnings).toEqual([
      `${path}: unknown top-level key stray (ignored; every key belongs under a [section])`,
      `${path}: unknown key [notes] max_lenght (ignored); did you mean "max_length"?`,
      `${path}: unknown section [limit] (ignored); did you mean "limits"?`,
    ]);
  });

  const refusals: [string, string, string][] = [
    ['a value out of range', '[notes]\nmax_length = 501\n', '[notes] max_length: expected an integer between 1 and 500, got 501'],
    ['a wrong type', '[limits]\nenabled = "yes"\n', '[limits] enabled: expected true or false, got "yes"'],
    ['a list of the wrong items', '[notes]\ntags = ["a", 2]\n', '[notes] tags: expected a list of strings, got ["a",2]'],
    ['a section that is not a table', 'limits = 3\n', 'limits: expected a [limits] table, got 3'],
  ];
  for (const [what, text, message] of refusals) {
    test(`${what}: a ConfigError naming the file, the key and the expectation`, () => {
      const path = fileWith(text);
      expect(() => unit.load(path)).toThrow(new ConfigError(`${path}: ${message}`));
    });
  }

  test('malformed TOML names the file, line and column, without the parser excerpt', () => {
    const path = fileWith('[notes]\nmax_length = 3\ntitle = "open\n');
    let thrown: unknown;
    try {
      unit.load(path);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as Error).message).toMatch(new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3:\\d+: malformed TOML: [^\\n]+$`));
    expect((thrown as Error).message).not.toContain('Invalid TOML document');
  });

  test('a path that cannot be read is a ConfigError with the system code', () => {
    const path = freshPath();
    mkdirSync(path, { recursive: true });
    expect(() => unit.load(path)).toThrow(new ConfigError(`${path}: cannot be read (EISDIR)`));
  });
});

describe('patch', () => {
  test('changes the keys named and keeps every comment and blank line', () => {
    const text = '# mine\n[notes]\n# why 40\nmax_length = 40 # short\n\n[limits]\nenabled = true\n';
    const path = fileWith(text);
    unit.patch(path, [
      { section: 'notes', key: 'max_length', value: 60 },
      { section: 'limits', key: 'enabled', value: false },
    ]);
    expect(readFileSync(path, 'utf8')).toBe('# mine\n[notes]\n# why 40\nmax_length = 60 # short\n\n[limits]\nenabled = false\n');
    expect(unit.read(path).value).toEqual({ notes: { ...DEFAULTS.notes, max_length: 60 }, limits: { enabled: false } });
  });

  test('a missing file is patched from the default file', () => {
    const path = freshPath();
    unit.patch(path, [{ section: 'notes', key: 'title', value: 'Mine' }]);
    expect(readFileSync(path, 'utf8')).toBe(unit.render().replace('title = "Notes \\"quoted\\""', 'title = "Mine"'));
  });

  test('a value the schema refuses is a ConfigError and the file is left as it was', () => {
    const text = '[notes]\nmax_length = 40\n';
    const path = fileWith(text);
    expect(() => unit.patch(path, [{ section: 'notes', key: 'max_length', value: 0 }])).toThrow(ConfigError);
    expect(readFileSync(path, 'utf8')).toBe(text);
    expect(readdirSync(join(path, '..'))).toEqual(['notes.toml']);
  });
});

describe('asStatic', () => {
  test('gives back a value that fits, and refuses one that does not', () => {
    expect(asStatic(Schema, structuredClone(DEFAULTS)).notes.max_length).toBe(140);
    expect(() => asStatic(Schema, { notes: { max_length: 'x' }, limits: { enabled: true } })).toThrow('does not fit its schema at /notes');
  });
});

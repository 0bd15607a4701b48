import { describe, expect, test } from 'bun:test';
import { Type as T, type TObject, type TSchema } from '@sinclair/typebox';
import { parse, stringify } from 'smol-toml';
import { ConfigSchema } from '../../../src/config/schema';
import type { FileText } from '../../../src/config/unit/file-text';
import { renderSectionsToml, renderToml } from '../../../src/config/unit/render';
import { AuthConfigSchema } from '../../../src/modules/auth/config';
import { playersModule } from '../../../src/modules/players/index';

/** The renderer of a module's default file before it was built on renderToml: the golden expectation. */
function describedFileBefore(schema: TObject, title: string): string {
  const lines = [`# ${title}`, '# Every key is listed with its default.', ''];
  for (const [section, sectionSchema] of Object.entries(schema.properties)) {
    lines.push(`[${section}]`);
    for (const [key, keySchema] of Object.entries((sectionSchema as TObject).properties)) {
      const description = (keySchema as TSchema).description;
      if (description) lines.push(`# ${description}`);
      lines.push(stringify({ [key]: (keySchema as TSchema).default }).trim());
    }
    lines.push('');
  }
  return lines.join('\n');
}

const Notes = T.Object({
  notes: T.Object({
    max_length: T.Integer({ default: 140, description: 'longest note in characters' }),
    tags: T.Array(T.String(), { default: ['a', 'b'], description: 'tags offered' }),
  }),
  limits: T.Object({ enabled: T.Boolean({ default: true, description: 'limits apply' }) }),
});

describe('a file without words: title and descriptions', () => {
  test.each([
    ['a test schema', Notes],
    ['auth.toml', AuthConfigSchema],
    ['players.toml', playersModule.configSchema!],
    ['svc.toml without its words', ConfigSchema],
  ] as [string, TObject][])('%s: the same bytes as before', (_, schema) => {
    expect(renderSectionsToml(schema, 'Some module configuration')).toBe(describedFileBefore(schema, 'Some module configuration'));
  });
});

const Doc = T.Object({
  general: T.Object({
    enabled: T.Boolean({ default: true }),
    maxCount: T.Integer({ default: 2 }),
    patterns: T.Array(T.String(), { default: ['a', 'b'] }),
    names: T.Array(T.String(), { default: ['x'] }),
    jobs: T.Array(T.Object({ name: T.String(), targets: T.Array(T.String()) }), { default: [{ name: 'one', targets: ['all'] }] }),
    limits: T.Object({ perHour: T.Integer({ default: 5 }) }),
    labels: T.Record(T.String(), T.String(), { default: { READY: 'up', 'not bare': 'x' } }),
  }),
});
const DOC_VALUE = { general: { enabled: true, maxCount: 2, patterns: ['a', 'b'], names: ['x'], jobs: [{ name: 'one', targets: ['all'] }, { name: 'two', targets: ['x', 'y'] }], limits: { perHour: 5 }, labels: { READY: 'up', 'not bare': 'x' } } };
const DOC_TEXT: FileText<typeof Doc> = {
  header: ['A document.', '', 'Second paragraph.'],
  spelling: 'snake_case',
  keys: {
    general: {
      intro: ['Below the table line.'],
      oneItemPerLine: ['patterns'],
      keys: {
        enabled: ['On or off.', '  indented'],
        jobs: { comment: ['The jobs.'], whenEmpty: ['No jobs.'] },
        limits: { comment: ['Above the table line.'], keys: { perHour: ['Per hour.'] } },
      },
    },
  },
};

describe('renderToml', () => {
  test('header, intro, comments above tables and keys, one item a line, snake_case fields, record keys as they are, lists of tables last', () => {
    expect(renderToml(Doc, DOC_TEXT, DOC_VALUE)).toBe(
      [
        '# A document.',
        '#',
        '# Second paragraph.',
        '',
        '[general]',
        '# Below the table line.',
        '# On or off.',
        '#   indented',
        'enabled = true',
        'max_count = 2',
        'patterns = [',
        '  "a",',
        '  "b",',
        ']',
        'names = [ "x" ]',
        '',
        '# Above the table line.',
        '[general.limits]',
        '# Per hour.',
        'per_hour = 5',
        '',
        '[general.labels]',
        'READY = "up"',
        '"not bare" = "x"',
        '',
        '# The jobs.',
        '[[general.jobs]]',
        'name = "one"',
        'targets = [ "all" ]',
        '',
        '[[general.jobs]]',
        'name = "two"',
        'targets = [ "x", "y" ]',
        '',
      ].join('\n'),
    );
  });

  test('an empty list of tables is `key = []` under its whenEmpty words; empty one-a-line lists stay on their line', () => {
    const value = { general: { ...DOC_VALUE.general, patterns: [], jobs: [] } };
    const text = renderToml(Doc, DOC_TEXT, value);
    expect(text).toContain('#   indented\nenabled = true\nmax_count = 2\npatterns = []\nnames = [ "x" ]\n# No jobs.\njobs = []\n\n# Above the table line.\n');
    expect(text).not.toContain('The jobs.');
    expect(text.endsWith('"not bare" = "x"\n')).toBe(true);
  });

  test("'left out': no key, the comment alone where the tables would go; only for a list whose default is []", () => {
    const Plan = T.Object({ plan: T.Object({ on: T.Boolean({ default: false }), steps: T.Array(T.Object({ at: T.String() }), { default: [] }) }), after: T.Object({ x: T.Integer({ default: 1 }) }) });
    const words: FileText<typeof Plan> = { header: ['Plan.'], keys: { plan: { keys: { steps: { comment: ['Steps go here:', '[[plan.steps]]', 'at = "now"'], whenEmpty: 'left out' } } } } };
    const text = renderToml(Plan, words, { plan: { on: false, steps: [] }, after: { x: 1 } });
    expect(text).toBe('# Plan.\n\n[plan]\non = false\n\n# Steps go here:\n# [[plan.steps]]\n# at = "now"\n\n[after]\nx = 1\n');
    expect(parse(text)).toEqual({ plan: { on: false }, after: { x: 1 } });
    expect(renderToml(Plan, words, { plan: { on: true, steps: [{ at: 'a' }] }, after: { x: 1 } })).toBe('# Plan.\n\n[plan]\non = true\n\n# Steps go here:\n# [[plan.steps]]\n# at = "now"\n[[plan.steps]]\nat = "a"\n\n[after]\nx = 1\n');
    const Wrong = T.Object({ plan: T.Object({ steps: T.Array(T.Object({ at: T.String() }), { default: [{ at: 'a' }] }) }) });
    expect(() => renderToml(Wrong, { header: [], keys: { plan: { keys: { steps: { whenEmpty: 'left out' } } } } }, { plan: { steps: [] } })).toThrow('plan.steps: an empty list is left out of the file, so its default must be []');
  });

  test('file layout: no blank line after the header, a blank line at the end, tight lists, a flat file', () => {
    const Flat = T.Object({ a: T.String({ default: 'x' }), list: T.Array(T.Integer(), { default: [1, 2] }) });
    expect(renderToml(Flat, { header: ['Flat.'], blankAfterHeader: false, blankAtEnd: true, tightLists: true, keys: { list: ['Numbers.'] } }, { a: 'x', list: [1, 2] })).toBe('# Flat.\na = "x"\n# Numbers.\nlist = [1, 2]\n\n');
    expect(renderToml(Flat, { header: [] }, { a: 'x', list: [] })).toBe('a = "x"\nlist = []\n');
  });

  test.each([
    ['nested tables and records', { d: { name: 'n', sign: { line1: 'a\nb', n: 1.5 }, npc: { items: {}, inv: { size: 9, lore: ['l'] } }, states: { 'a b': 'c' } } }],
    ['a table holding only tables, an empty table last', { d: { only: { inner: { x: 1 } }, empty: {} } }],
    ['top-level keys and tables', { a: 1, big: 2 ** 60, t: { k: true } }],
  ])('without words and lists of tables, the layout is smol-toml stringify: %s', (_, value) => {
    expect(renderToml(T.Object({}), { header: [] }, value as never)).toBe(stringify(value));
  });
});

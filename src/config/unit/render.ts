import type { Static, TObject, TSchema } from '@sinclair/typebox';
import { stringify } from 'smol-toml';
import { defaultsOf } from './defaults';
import type { Comment, FileText, TablesText, TableText } from './file-text';
import { toSnake } from './respell';

export type { Comment, FileText, TablesText, TableText };

/**
 * A value of a schema as a commented TOML file: the file's words (file-text.ts) around the
 * value's keys. Used for a file written on first launch (the value is the defaults) and for a
 * file saved whole with current values (backup.toml, display and messages files).
 *
 * The layout is smol-toml's `stringify` (whose files these always were): a table's keys, then
 * its sub-tables, a blank line between tables, values as smol-toml writes them; keys in the
 * schema's order (a record's in the value's). Besides the words, one difference: lists of
 * tables come after a table's sub-tables (the open-ended part of a table last).
 */
export function renderToml<S extends TObject>(schema: S, text: FileText<S>, value: Static<S>): string {
  const style: Style = { tight: text.tightLists === true, spell: text.spelling === 'snake_case' ? toSnake : (key) => key };
  let body = table(undefined, undefined, schema, value as Record<string, unknown>, text as TableText<Record<string, unknown>>, style);
  if (!body.endsWith('\n')) body += '\n';
  const header = commentLines(text.header);
  const gap = header !== '' && text.blankAfterHeader !== false ? '\n' : '';
  return `${header}${gap}${body}${text.blankAtEnd ? '\n' : ''}`;
}

/**
 * The words of a file no one has written any for: a title, and each key's description as its
 * comment (the default file of a module's `config/modules/<id>/<id>.toml`).
 */
export function describedText<S extends TObject>(schema: S, title: string): FileText<S> {
  const keys: Record<string, { keys: Record<string, Comment> }> = {};
  for (const [section, sectionSchema] of Object.entries(schema.properties)) {
    const described: Record<string, Comment> = {};
    for (const [key, keySchema] of Object.entries((sectionSchema as TObject).properties)) {
      const description = (keySchema as TSchema).description;
      if (description) described[key] = [description];
    }
    keys[section] = { keys: described };
  }
  // Built from the schema's own sections and keys, so it fits the schema's words type.
  return { header: [title, 'Every key is listed with its default.'], keys } as unknown as FileText<S>;
}

/** A schema of sections as its commented default file, each key after its description. */
export function renderSectionsToml(schema: TObject, title: string): string {
  return renderToml(schema, describedText(schema, title), defaultsOf(schema));
}

interface Style {
  tight: boolean;
  spell: (key: string) => string;
}

type Table = Record<string, unknown>;
type AnyText = TablesText<Table>;

/** A key as smol-toml writes it (bare, or quoted when it must be). */
const formatKey = (key: string): string => stringify({ [key]: true }).slice(0, -' = true\n'.length);
/** A value as smol-toml writes it after `key = `. */
const inline = (value: unknown): string => stringify({ v: value }).slice('v = '.length, -1);

const commentLines = (comment: Comment | undefined): string => (comment ?? []).map((line) => (line === '' ? '#\n' : `# ${line}\n`)).join('');

const isTable = (value: unknown): value is Table => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
const isListOfTables = (value: unknown[]): value is Table[] => value.length > 0 && value.every(isTable);
/** Whether the schema is a list of objects (an empty one is still written as tables, or as `[]`). */
const listsTables = (schema: TSchema | undefined): boolean => schema?.type === 'array' && (schema.items as TSchema | undefined)?.type === 'object';

/**
 * A table's fields: the schema's in its order, then any the value has beside them; a record's
 * keys (names, written as they are spelt) in the value's order.
 */
function fieldsOf(schema: TSchema | undefined, value: Table, style: Style): [field: string, key: string, schema: TSchema | undefined][] {
  const properties = schema?.properties as Record<string, TSchema> | undefined;
  if (!properties) {
    const items = schema?.patternProperties ? (Object.values(schema.patternProperties as Record<string, TSchema>)[0] as TSchema) : undefined;
    return Object.keys(value).map((field) => [field, field, items]);
  }
  const fields = Object.keys(properties);
  for (const field of Object.keys(value)) if (!(field in properties)) fields.push(field);
  return fields.map((field) => [field, style.spell(field), properties[field]]);
}

/**
 * One table: `[header]` (when there is one) with its comment and intro, its keys, then its
 * sub-tables and lists of tables, each separated by a blank line. `prefix` names its children.
 * smol-toml's rules: a table holding only sub-tables has no header line of its own, and an empty
 * one is its header alone (no line break: the next header follows on the next line).
 */
function table(header: string | undefined, prefix: string | undefined, schema: TSchema | undefined, value: Table, text: AnyText | undefined, style: Style): string {
  let keys = '';
  const subs: string[] = [];
  const lists: string[] = [];
  for (const [field, key, fieldSchema] of fieldsOf(schema, value, style)) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    const path = prefix === undefined ? formatKey(key) : `${prefix}.${formatKey(key)}`;
    const words = text?.keys?.[field] as AnyText | Comment | undefined;
    const tableWords = Array.isArray(words) ? undefined : (words as AnyText | undefined);
    if (Array.isArray(v) && (isListOfTables(v) || (v.length === 0 && listsTables(fieldSchema) && tableWords?.whenEmpty === 'left out'))) {
      if (v.length === 0 && fieldSchema?.default !== undefined && !(Array.isArray(fieldSchema.default) && fieldSchema.default.length === 0)) {
        throw new Error(`${path}: an empty list is left out of the file, so its default must be [] (it reads back as the default)`);
      }
      const items = fieldSchema?.type === 'array' ? (fieldSchema.items as TSchema) : undefined;
      const list = commentLines(tableWords?.comment) + (v as Table[]).map((item) => `[[${path}]]\n${table(undefined, path, items, item, tableWords, style)}`).join('\n');
      if (list !== '') lists.push(list);
    } else if (isTable(v)) {
      subs.push(table(path, path, fieldSchema, v, tableWords, style));
    } else {
      const emptyList = Array.isArray(v) && v.length === 0 && listsTables(fieldSchema);
      const comment = emptyList ? (tableWords?.whenEmpty as Comment | undefined) : (words as Comment | undefined);
      const perLine = Array.isArray(v) && (text?.oneItemPerLine as readonly string[] | undefined)?.includes(field) === true;
      keys += `${commentLines(comment)}${formatKey(key)} = ${valueText(v, perLine, style)}\n`;
    }
  }
  const rest = [...subs, ...lists].join('\n');
  const intro = header === undefined ? '' : commentLines(text?.intro);
  const content = intro + keys;
  let head = header === undefined ? commentLines(text?.intro) + keys : '';
  if (header !== undefined && (content !== '' || rest === '' || text?.comment !== undefined)) {
    head = commentLines(text?.comment) + (content === '' ? `[${header}]` : `[${header}]\n${content}`);
  }
  return head !== '' && rest !== '' ? `${head}\n${rest}` : head || rest;
}

function valueText(value: unknown, perLine: boolean, style: Style): string {
  if (!Array.isArray(value)) return inline(value);
  if (perLine) return value.length === 0 ? '[]' : `[\n${value.map((item) => `  ${inline(item)},\n`).join('')}]`;
  return style.tight ? `[${value.map(inline).join(', ')}]` : inline(value);
}

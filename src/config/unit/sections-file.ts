import { existsSync, readFileSync } from 'node:fs';
import type { Static } from '@sinclair/typebox';
import { patchToml, type TomlUpdate } from '../patch';
import { writeFileAtomic } from '../write';
import { ConfigError } from './config-error';
import { defaultsOf } from './defaults';
import type { FileText } from './file-text';
import { describedText, renderToml } from './render';
import { asStatic, readSections, type ReadSections, type SectionsSchema } from './sections';

export type { SectionsSchema };
import { parseTomlText, TomlSyntaxError } from './toml-syntax';

export interface SectionsFileOptions<S extends SectionsSchema> {
  /** Every section, key, type, default and description of the file. */
  schema: S;
  /** First comment line of the file rendered from the schema (when no `text` is given). */
  title: string;
  /**
   * The file's words around its keys (file-text.ts): svc.toml's and agent.toml's sentences.
   * Without it, the file says `title` and each key's description.
   */
  text?: FileText<S>;
  /**
   * A fixed default file instead of the one rendered from the schema. No file of svc's has one
   * any more (their commented files are rendered from their schemas and words).
   */
  defaultText?: string;
}

/**
 * One TOML file of `[section]` tables read against its schema: the unit every sections file
 * (svc.toml, agent.toml, each module's `config/modules/<id>/<id>.toml`) goes through.
 * - reading fills defaults, warns of unknown keys and throws a ConfigError naming the file,
 *   the key and what was expected (`parse`, `read`, `load`);
 * - a missing file is written with every key at its default, commented: the file's words
 *   (`text`) or each key's description (`ensure`, `render`);
 * - a change rewrites only the keys named, keeping every comment, atomically (`patch`).
 * Values come back as `Static<typeof schema>`: callers never cast.
 */
export class SectionsFile<S extends SectionsSchema> {
  readonly schema: S;
  readonly title: string;
  private readonly text: FileText<S> | undefined;
  private readonly defaultText: string | undefined;

  constructor(options: SectionsFileOptions<S>) {
    this.schema = options.schema;
    this.title = options.title;
    this.text = options.text;
    this.defaultText = options.defaultText;
  }

  /** Fresh defaults (a new object on every call). */
  defaults(): Static<S> {
    return asStatic(this.schema, defaultsOf(this.schema));
  }

  /** The commented file holding every key at `value` (the defaults when none is given). */
  render(value?: Static<S>): string {
    if (value === undefined && this.defaultText !== undefined) return this.defaultText;
    return renderToml(this.schema, this.text ?? describedText(this.schema, this.title), value ?? this.defaults());
  }

  /** Writes the default file if there is none (and its folder); true when written. */
  ensure(path: string): boolean {
    if (existsSync(path)) return false;
    writeFileAtomic(path, this.render());
    return true;
  }

  /** Reads text as this file; `file` names it in warnings and errors. */
  parse(text: string, file: string): ReadSections<S> {
    let raw: Record<string, unknown>;
    try {
      raw = parseTomlText(text);
    } catch (error) {
      if (error instanceof TomlSyntaxError) throw new ConfigError(error.inFile(file));
      throw error;
    }
    return readSections(this.schema, raw, file);
  }

  /** Reads the file at `path`; a file that cannot be read is a ConfigError too. */
  read(path: string): ReadSections<S> & { text: string } {
    const text = readText(path);
    return { ...this.parse(text, path), text };
  }

  /** `ensure`, then `read`: what a controller does at start. */
  load(path: string): ReadSections<S> & { text: string; created: boolean } {
    const created = this.ensure(path);
    return { ...this.read(path), created };
  }

  /**
   * Sets the keys named, keeping every other byte of the file (comments, blank lines, order);
   * a missing file is patched from the default file. A value the schema refuses throws a
   * ConfigError and nothing is written. Written atomically. Returns the new text.
   */
  patch(path: string, updates: TomlUpdate[]): string {
    const current = existsSync(path) ? readText(path) : this.render();
    const next = patchToml(current, updates);
    this.parse(next, path);
    writeFileAtomic(path, next);
    return next;
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
  }
}

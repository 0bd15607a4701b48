import type { Static, TSchema } from '@sinclair/typebox';

/**
 * The words of a commented config file, kept next to its schema: the schema says which keys,
 * types and defaults there are (and describes each for the API and the doctor); this says what
 * the file written from it reads like around them. Typed from the schema, so a section or key
 * the schema does not have cannot be given words, and renaming one is a type error here.
 * `renderToml` (render.ts) writes a value of the schema with these words.
 */

/** Comment lines as the file shows them after `# ` ('' is a line holding only `#`). */
export type Comment = readonly string[];

/** The words for a value: a table's, a list of tables', or a key's comment lines. */
export type TextOf<V> = V extends readonly (infer I)[] ? (I extends Record<string, unknown> ? TablesText<I> : Comment) : V extends Record<string, unknown> ? TableText<V> : Comment;

/** A table (`[name]`). */
export interface TableText<V> {
  /** Lines above the `[name]` line. */
  comment?: Comment;
  /** Lines right below the `[name]` line, before its first key. */
  intro?: Comment;
  /** The words for each key, in the schema's spelling; a key not listed has no comment. */
  keys?: { readonly [K in keyof V]?: TextOf<V[K]> };
  /** Lists written one item a line (`key = [`, `  "a",`, `]`) instead of on the key's line. */
  oneItemPerLine?: readonly (keyof V)[];
}

/** A list of tables (`[[name]]`); `intro` and `keys` apply to every table of it. */
export interface TablesText<I> extends TableText<I> {
  /**
   * An empty list: `name = []` in the table above, under these lines (instead of `comment`);
   * or 'left out': no key at all, which reads back as the schema's default (it must be []), and
   * `comment` alone where the tables would be (the place to add one).
   */
  whenEmpty?: Comment | 'left out';
}

/** A whole file: the root table's keys (sections, or keys of a flat file) and the file's own layout. */
export interface FileText<S extends TSchema> {
  /** The first lines of the file. */
  header: Comment;
  /** A blank line between the header and the rest (default true). */
  blankAfterHeader?: boolean;
  /** A blank line at the end (the display and messages files have always had one). */
  blankAtEnd?: boolean;
  /** Lists on a key's line as `["a", "b"]` (svc.toml, agent.toml) instead of `[ "a", "b" ]`. */
  tightLists?: boolean;
  /** How the schema's field names are written: as they are (default), or camelCase as snake_case. */
  spelling?: 'as-is' | 'snake_case';
  keys?: TableText<Static<S>>['keys'];
  oneItemPerLine?: TableText<Static<S>>['oneItemPerLine'];
}

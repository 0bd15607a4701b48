import { parse, TomlError } from 'smol-toml';

/**
 * TOML text that does not parse. smol-toml's message is a headline ("Invalid TOML document:
 * <reason>") over a multi-line excerpt; only the reason and the position are kept, and said in
 * one of the two ways config files report problems:
 * - `inFile(file)`: `<file>:<line>:<column>: malformed TOML: <reason>`, for a file that must be
 *   fixed before anything starts (svc.toml, a group, a dedicated service);
 * - `problem`: `not valid TOML: <reason> at line <line>, column <column>`, for a module file
 *   whose problem is shown after its name (log, doctor) while the module runs on its defaults.
 */
export class TomlSyntaxError extends Error {
  override name = 'TomlSyntaxError';

  constructor(
    readonly reason: string,
    readonly line: number | undefined,
    readonly column: number | undefined,
  ) {
    super(`not valid TOML: ${reason}${line ? ` at line ${line}, column ${column}` : ''}`);
  }

  get problem(): string {
    return this.message;
  }

  inFile(file: string): string {
    return `${file}${this.line ? `:${this.line}:${this.column}` : ''}: malformed TOML: ${this.reason}`;
  }
}

/** The one place TOML's parse errors are read; anything else thrown is turned into a reason too. */
export function tomlSyntaxError(error: unknown): TomlSyntaxError {
  const message = error instanceof Error ? error.message : String(error);
  const reason = (message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '') || 'syntax error';
  if (error instanceof TomlError) return new TomlSyntaxError(reason, error.line, error.column);
  return new TomlSyntaxError(reason, undefined, undefined);
}

/** Parses TOML text; a syntax error is thrown as a TomlSyntaxError. */
export function parseTomlText(text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    throw tomlSyntaxError(error);
  }
}

/** Parses TOML text; a syntax error is thrown as what `fail` makes of it (a file's own error class). */
export function parseTomlOr(text: string, fail: (error: TomlSyntaxError) => Error): Record<string, unknown> {
  try {
    return parseTomlText(text);
  } catch (error) {
    if (error instanceof TomlSyntaxError) throw fail(error);
    throw error;
  }
}

import { describe, expect, test } from 'bun:test';
import { parseTomlText, TomlSyntaxError, tomlSyntaxError } from '../../../src/config/unit/toml-syntax';

describe('TOML syntax errors, read in one place', () => {
  test('text that parses is its table', () => {
    expect(parseTomlText('[a]\nb = 1\n')).toEqual({ a: { b: 1 } });
  });

  test('a syntax error keeps the reason and the position, and says it both ways', () => {
    let thrown: unknown;
    try {
      parseTomlText('[a]\nb = "open\n');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TomlSyntaxError);
    const error = thrown as TomlSyntaxError;
    expect(error.line).toBe(2);
    expect(error.reason).not.toContain('\n');
    expect(error.reason).not.toStartWith('Invalid TOML document');
    expect(error.problem).toBe(`not valid TOML: ${error.reason} at line 2, column ${error.column}`);
    expect(error.inFile('x.toml')).toBe(`x.toml:2:${error.column}: malformed TOML: ${error.reason}`);
  });

  test('something other than a parser error still gives a one-line reason, without a position', () => {
    const error = tomlSyntaxError(new Error('boom\nmore'));
    expect(error.problem).toBe('not valid TOML: boom');
    expect(error.inFile('x.toml')).toBe('x.toml: malformed TOML: boom');
    expect(tomlSyntaxError(new Error('')).reason).toBe('syntax error');
  });
});

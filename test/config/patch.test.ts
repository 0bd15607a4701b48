import { describe, expect, test } from 'bun:test';
import { parse as parseToml } from 'smol-toml';
import { patchToml, tomlString } from '../../src/config/patch';
import { DEFAULT_CONFIG_TEXT } from '../../src/config/load';

describe('patchToml', () => {
  test('changes only the value of the named key, byte-for-byte elsewhere', () => {
    const out = patchToml(DEFAULT_CONFIG_TEXT, [{ section: 'network', key: 'name', value: 'Skyblock' }]);
    const before = DEFAULT_CONFIG_TEXT.split('\n');
    const after = out.split('\n');
    expect(after.length).toBe(before.length);
    const changed = after.map((line, i) => [line, before[i]]).filter(([a, b]) => a !== b);
    expect(changed).toEqual([['name = "Skyblock"', 'name = "svc"']]);
  });

  test('keeps a trailing comment and the spacing around =', () => {
    const text = '[console]\n  colored   =   true   # colours on\nlog_events=true\n';
    const out = patchToml(text, [
      { section: 'console', key: 'colored', value: false },
      { section: 'console', key: 'log_events', value: false },
    ]);
    expect(out).toBe('[console]\n  colored   =   false   # colours on\nlog_events=false\n');
  });

  test('a # inside a string value is part of the value', () => {
    const text = '[network]\nname = "a # b" # note\n';
    expect(patchToml(text, [{ section: 'network', key: 'name', value: 'c' }])).toBe('[network]\nname = "c" # note\n');
  });

  test('the same key in another section is left alone', () => {
    const text = '[database]\nname = "svc"\n\n[network]\nname = "old"\n';
    const out = patchToml(text, [{ section: 'network', key: 'name', value: 'new' }]);
    expect(out).toBe('[database]\nname = "svc"\n\n[network]\nname = "new"\n');
  });

  test('a missing key is added to its section; a missing section is appended', () => {
    const text = '[network]\nbind = "0.0.0.0"\n\n[api]\nport = 1\n';
    const out = patchToml(text, [
      { section: 'network', key: 'name', value: 'N' },
      { section: 'console', key: 'colored', value: true },
    ]);
    expect(parseToml(out)).toEqual({ network: { bind: '0.0.0.0', name: 'N' }, api: { port: 1 }, console: { colored: true } });
    expect(out.startsWith('[network]\nbind = "0.0.0.0"\nname = "N"\n')).toBe(true);
  });

  test('special characters are escaped so the file stays valid TOML', () => {
    const value = 'quote " backslash \\ newline \n tab \t unicode ✓';
    const out = patchToml('[network]\nname = "x"\n', [{ section: 'network', key: 'name', value }]);
    expect((parseToml(out) as { network: { name: string } }).network.name).toBe(value);
  });

  test('CRLF files stay CRLF', () => {
    const out = patchToml('[network]\r\nname = "x"\r\nbind = "y"\r\n', [{ section: 'network', key: 'name', value: 'z' }]);
    expect(out).toBe('[network]\r\nname = "z"\r\nbind = "y"\r\n');
  });

  test('multi-line string values are refused rather than corrupted', () => {
    expect(() => patchToml('[network]\nname = """a\nb"""\n', [{ section: 'network', key: 'name', value: 'z' }])).toThrow('multi-line');
  });

  test('a value holding U+2028 is replaced in place, not duplicated (regression)', () => {
    let text = '[network]\nname = "x"\n';
    text = patchToml(text, [{ section: 'network', key: 'name', value: 'a\u2028b' }]);
    text = patchToml(text, [{ section: 'network', key: 'name', value: 'c' }]);
    expect(text).toBe('[network]\nname = "c"\n');
  });
});

describe('tomlString', () => {
  test('escapes what TOML forbids raw and round-trips', () => {
    for (const value of ['plain', 'a\u007fb', 'nul\u0000', 'bell\u0007', 'ls\u2028ps\u2029', 'quote"back\\slash', 'emoji 🎮']) {
      const rendered = tomlString(value);
      expect((parseToml(`v = ${rendered}`) as { v: string }).v).toBe(value);
    }
    expect(tomlString('a\u007fb')).toBe('"a\\u007Fb"');
  });
  test('refuses lone surrogates, which TOML cannot hold', () => {
    expect(() => tomlString('\ud800')).toThrow('lone surrogate');
  });
});

import { describe, expect, test } from 'bun:test';
import { expectExactShape, expectShape, shapeProblems } from './expect-shape';

const group = { name: 'Lobby', resources: { memory: '512M', maxPlayers: 50 }, jvmArgs: ['-Xss1M'], uptime: null };

describe('shapeProblems', () => {
  test('a value that has every field with its type passes', () => {
    expect(shapeProblems({ groups: [group], total: 1 }, { 'groups[].name': 'string', 'groups[].resources.memory': 'string', 'groups[].resources.maxPlayers': 'number', 'groups[].jvmArgs[]': 'string', 'groups[].uptime': 'string|null', total: 'integer' })).toEqual([]);
  });

  test('a missing field is named with its concrete path', () => {
    expect(shapeProblems({ groups: [group, { name: 'Echo' }] }, { 'groups[].resources.memory': 'string' })).toEqual(['groups[1].resources.memory: expected string, got absent']);
  });

  test('a wrong type is named with the value it had', () => {
    expect(shapeProblems({ uptime: 11 }, { uptime: 'string|null' })).toEqual(['uptime: expected string|null, got number 11']);
  });

  test('null where a number is required fails; absent passes only where allowed', () => {
    expect(shapeProblems({ tps: null }, { tps: 'number' })).toEqual(['tps: expected number, got null']);
    expect(shapeProblems({ tps: null }, { tps: 'number|absent' })).toEqual(['tps: expected number|absent, got null']);
    expect(shapeProblems({}, { tps: 'number|absent' })).toEqual([]);
    expect(shapeProblems({ tps: 19.5 }, { tps: 'integer' })).toEqual(['tps: expected integer, got number 19.5']);
  });

  test('an array where an object is required fails, both as a leaf and on the way to a key', () => {
    expect(shapeProblems({ services: [{ name: 'Lobby-1' }] }, { services: 'object' })).toEqual(['services: expected object, got array [{"name":"Lobby-1"}]']);
    expect(shapeProblems({ services: [{ name: 'Lobby-1', players: 3 }] }, { 'services{}': 'number' })).toEqual(['services: expected object (a map), got array [{"name":"Lobby-1","players":3}]']);
    expect(shapeProblems({ resources: ['512M'] }, { 'resources.memory': 'string' })).toEqual(['resources: expected object (to read "memory"), got array ["512M"]']);
  });

  test('an object where an array is required fails', () => {
    expect(shapeProblems({ software: { list: [] } }, { 'software[].name': 'string' })).toEqual(['software: expected array, got object {"list":[]}']);
  });

  test('an empty array has nothing to check and fails unless the path allows it', () => {
    expect(shapeProblems({ entries: [] }, { 'entries[].version': 'string' })).toEqual(['entries: expected a non-empty array (nothing to check of "entries[].version"), got []']);
    expect(shapeProblems({ entries: [] }, { 'entries[]?.version': 'string' })).toEqual([]);
  });

  test('map values, literal sets, patterns and root arrays', () => {
    expect(shapeProblems({ services: { 'Lobby-1': 3, 'Echo-1': '2' } }, { 'services{}': 'number' })).toEqual(['services{"Echo-1"}: expected number, got string "2"']);
    expect(shapeProblems({ sections: [{ findings: [{ level: 'OK' }, { level: 'INFO' }] }] }, { 'sections[].findings[].level': ['OK', 'WARN', 'FAIL'] })).toEqual([
      'sections[0].findings[1].level: expected one of "OK", "WARN", "FAIL", got string "INFO"',
    ]);
    expect(shapeProblems({ uptime: '0h 0m 3s' }, { uptime: /^\d+h \d+m \d+s$/ })).toEqual([]);
    expect(shapeProblems({ uptime: '3' }, { uptime: /^\d+h \d+m \d+s$/ })).toEqual(['uptime: expected a string matching /^\\d+h \\d+m \\d+s$/, got string "3"']);
    expect(shapeProblems([{ name: 'PAPER' }, { name: 1 }], { '[].name': 'string' })).toEqual(['[1].name: expected string, got number 1']);
  });

  test('a problem met by many paths is reported once', () => {
    expect(shapeProblems({ groups: [{}] }, { 'groups[].scaling.minInstances': 'number', 'groups[].scaling.maxInstances': 'number' })).toEqual([
      'groups[0].scaling.minInstances: expected number, got absent',
      'groups[0].scaling.maxInstances: expected number, got absent',
    ]);
    expect(shapeProblems({ groups: 'none' }, { 'groups[].a': 'number', 'groups[].b': 'number' })).toEqual(['groups: expected array, got string "none"']);
  });

  test('a mistyped shape is a test bug, not a pass', () => {
    expect(() => shapeProblems({ a: 1 }, { a: 'numbr' })).toThrow('unknown JSON type "numbr"');
  });
});

describe('expectShape', () => {
  test('throws one error naming the label and every problem', () => {
    expect(() => expectShape({ uptime: 11 }, { uptime: 'string|null', state: 'string' }, 'GET /api/services/Lobby-1')).toThrow(
      'GET /api/services/Lobby-1:\n  uptime: expected string|null, got number 11\n  state: expected string, got absent',
    );
    expect(() => expectShape({ state: 'READY' }, { state: 'string' }, 'x')).not.toThrow();
  });
});

describe('expectExactShape', () => {
  const types = { id: 'number', name: 'string', note: 'string|null' };
  test('passes the exact fields with their types', () => {
    expect(() => expectExactShape({ id: 1, name: 'a', note: null }, types, 'R')).not.toThrow();
  });
  test('names an extra key, a missing key and a wrong type', () => {
    expect(() => expectExactShape({ id: 1, name: 'a', note: null, secret: 'x' }, types, 'R')).toThrow('R: unexpected keys secret');
    expect(() => expectExactShape({ id: 1, name: 'a' }, types, 'R')).toThrow('R: missing keys note');
    expect(() => expectExactShape({ id: '1', name: 'a', note: 'n' }, types, 'R')).toThrow('id: expected number');
    expect(() => expectExactShape([], types, 'R')).toThrow('R: expected an object');
  });
});

import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { cachedJson } from '../../src/http/cached-json';

const View = Type.Object({ name: Type.String(), sections: Type.Record(Type.String(), Type.Unknown()) });

describe('cachedJson', () => {
  test('the JSON of the value, as Elysia would send it', async () => {
    const answer = cachedJson(View);
    const value = { name: 'net', sections: { api: { port: 8080 } } };
    const response = answer(value);
    expect(response.headers.get('content-type')).toBe('application/json;charset=utf-8');
    expect(await response.text()).toBe(JSON.stringify(value));
  });

  test('one serialisation per value: the same object sends the same text; a new object is read again', async () => {
    const answer = cachedJson(View);
    const value = { name: 'net', sections: {} };
    await answer(value).text();
    value.name = 'changed in place'; // a view is replaced, never edited: an edit is not seen
    expect(await answer(value).text()).toContain('"net"');
    expect(await answer({ ...value }).text()).toContain('changed in place');
  });

  test('a value that does not match the schema is refused, naming where', () => {
    const answer = cachedJson(View);
    expect(() => answer({ name: 42, sections: {} })).toThrow(/\/name/);
  });
});

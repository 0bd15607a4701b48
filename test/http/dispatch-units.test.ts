/**
 * The small pieces of the HTTP layer (src/http), each on its own: the route table's strict and
 * lenient matches and path parameters, the query parser, the response mirror, CORS, the
 * mapping of handler values to responses and part validation.
 */
import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { Cors } from '../../src/http/cors';
import { mirror } from '../../src/http/mirror';
import { parseQuery } from '../../src/http/request';
import { toResponse, withHeaders } from '../../src/http/respond';
import type { AnyRoute } from '../../src/http/route';
import { RouteTable } from '../../src/http/route-table';
import { validatePart, validateResponse } from '../../src/http/route-validator';
import { t } from '../../src/http/t';
import { ValidationFailure } from '../../src/http/validation';

const route = (method: AnyRoute['method'], path: string, extra: Partial<AnyRoute> = {}): AnyRoute =>
  ({ method, path, auth: 'public', summary: path, tag: 't', response: {}, handler: () => null, ...extra }) as AnyRoute;

describe('RouteTable', () => {
  const groups = route('GET', '/api/groups');
  const group = route('GET', '/api/groups/:name');
  const files = route('GET', '/api/files/:scope/*');
  const table = new RouteTable([groups, group, files], [{ path: '/api/events', auth: 'service', summary: 'events' }]);

  test('a trailing slash matches leniently (the guard) but not strictly (dispatch)', () => {
    expect(table.match('GET', '/api/groups/')?.kind).toBe('route');
    expect(table.match('GET', '/api/groups/', true)).toBeUndefined();
    expect(table.match('GET', '/api/groups', true)).toMatchObject({ kind: 'route', route: groups, params: {} });
  });

  test('HEAD is answered by the GET route; another method finds nothing', () => {
    expect(table.match('HEAD', '/api/groups', true)).toMatchObject({ route: groups });
    expect(table.match('PUT', '/api/groups', true)).toBeUndefined();
  });

  test('named parameters are percent-decoded; a malformed escape stays as sent', () => {
    expect(table.match('GET', '/api/groups/Lobby%20One', true)?.params).toEqual({ name: 'Lobby One' });
    expect(table.match('GET', '/api/groups/%E2%82%AC', true)?.params).toEqual({ name: '€' });
    expect(table.match('GET', '/api/groups/100%', true)?.params).toEqual({ name: '100%' });
    expect(table.match('GET', '/api/groups/', true)).toBeUndefined();
  });

  test('the wildcard is the rest of the path as sent, empty for none', () => {
    expect(table.match('GET', '/api/files/templates/a%2Fb/c%20d', true)?.params).toEqual({ scope: 'templates', '*': 'a%2Fb/c%20d' });
    expect(table.match('GET', '/api/files/templates', true)?.params).toEqual({ scope: 'templates', '*': '' });
    expect(table.match('GET', '/api/files/templates/', true)?.params).toEqual({ scope: 'templates', '*': '' });
  });

  test('sockets are endpoints of their own', () => {
    expect(table.match('GET', '/api/events', true)?.kind).toBe('socket');
  });
});

describe('parseQuery', () => {
  test('plus is a space, escapes decoded, a malformed one kept', () => {
    expect(parseQuery('a=x+y&b=%C3%A9&c=%zz&d')).toEqual({ a: 'x y', b: 'é', c: '%zz', d: '' });
  });

  test('a repeated key is its last value unless it is a list', () => {
    expect(parseQuery('a=1&a=2&l=1&l=2', new Set(['l']))).toEqual({ a: '2', l: ['1', '2'] });
    expect(parseQuery('l=only', new Set(['l']))).toEqual({ l: ['only'] });
  });

  test('__proto__ is never a key', () => {
    const query = parseQuery('__proto__=x&a=1');
    expect(Object.keys(query)).toEqual(['a']);
    expect(Object.getPrototypeOf(query)).toBe(Object.prototype);
  });
});

describe('mirror', () => {
  const schema = Type.Object({
    name: Type.String(),
    nested: Type.Optional(Type.Object({ keep: Type.Number() })),
    list: Type.Optional(Type.Array(Type.Object({ id: Type.Number() }))),
    map: Type.Optional(Type.Record(Type.String(), Type.Object({ v: Type.Number() }))),
    free: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  });

  test('undeclared keys are left out at every depth; the input is not changed', () => {
    const input = { name: 'a', secret: 's', nested: { keep: 1, drop: 2 }, list: [{ id: 1, x: 1 }], map: { k: { v: 1, w: 2 } }, free: { any: { thing: 1 } } };
    const copy = structuredClone(input);
    expect(mirror(schema, input)).toEqual({ name: 'a', nested: { keep: 1 }, list: [{ id: 1 }], map: { k: { v: 1 } }, free: { any: { thing: 1 } } });
    expect(input).toEqual(copy);
  });

  test('null for an optional object is the same as leaving it out', () => {
    expect(mirror(schema, { name: 'a', nested: null })).toEqual({ name: 'a' });
  });

  test('a union member is chosen by what the value satisfies', () => {
    const union = Type.Union([Type.Object({ kind: Type.Literal('a'), a: Type.Number() }), Type.Object({ kind: Type.Literal('b'), b: Type.Number() })]);
    expect(mirror(union, { kind: 'b', b: 2, extra: 1 })).toEqual({ kind: 'b', b: 2 });
  });

  test('extra properties are kept when the schema allows them', () => {
    expect(mirror(Type.Object({ a: Type.Number() }, { additionalProperties: true }), { a: 1, b: 2 })).toEqual({ a: 1, b: 2 });
  });
});

describe('validatePart', () => {
  const query = t.Object({ limit: t.Optional(t.Integer({ minimum: 1, maximum: 500 })), on: t.Optional(t.Boolean()), ratio: t.Optional(t.Number()) });

  test('query text becomes the integers, booleans and numbers the schema declares', () => {
    expect(validatePart('query', query, { limit: '20', on: 'true', ratio: '0.5', other: 'x' }, true)).toEqual({ limit: 20, on: true, ratio: 0.5 });
  });

  test('an integer out of range names the parameter and what it accepts', () => {
    const failure = (() => {
      try {
        validatePart('query', query, { limit: '501' }, true);
      } catch (error) {
        return error;
      }
    })() as ValidationFailure;
    expect(failure).toBeInstanceOf(ValidationFailure);
    expect(failure.type).toBe('query');
    expect(failure.all[0]?.path).toBe('/limit');
  });

  test('no number hides in an integer: 1.5, true and words are refused', () => {
    for (const limit of ['1.5', 'true', 'ten', '']) expect(() => validatePart('query', query, { limit }, true)).toThrow(ValidationFailure);
  });

  test('an optional body may be left out; a required one may not', () => {
    const body = Type.Object({ a: Type.String() });
    expect(validatePart('body', Type.Optional(body), undefined, false)).toBeUndefined();
    expect(() => validatePart('body', body, undefined, false)).toThrow(ValidationFailure);
  });

  test('an answer outside its response schema is a response failure (our bug)', () => {
    const r = route('GET', '/x', { response: { 200: Type.Object({ n: Type.Number() }) } });
    expect(validateResponse(r, 200, { n: 1, hidden: 'x' })).toEqual({ n: 1 });
    expect(() => validateResponse(r, 200, { n: 'one' })).toThrow(ValidationFailure);
    expect(validateResponse(r, 201, { anything: true })).toEqual({ anything: true });
  });
});

describe('Cors', () => {
  const request = (origin?: string) => new Request('http://x/api/health', { headers: origin ? { origin } : {} });

  test('an allowed origin is echoed with credentials; another is not', () => {
    const cors = new Cors(['http://localhost:3000']);
    expect(cors.headersFor(request('http://localhost:3000'))['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(cors.headersFor(request('http://evil.example'))['access-control-allow-origin']).toBeUndefined();
    expect(cors.headersFor(request())).toEqual({ vary: 'Origin' });
  });

  test('an empty list allows any origin; the preflight lists methods and headers', () => {
    const preflight = new Cors([]).preflight(request('http://anything.example'));
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://anything.example');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
  });
});

describe('toResponse', () => {
  test('objects are JSON, text is text, nothing is an empty body, with the set status and headers', async () => {
    const json = toResponse({ a: 1 }, { status: 201, headers: { 'x-a': 1 } });
    expect([json.status, json.headers.get('content-type'), json.headers.get('x-a'), await json.text()]).toEqual([201, 'application/json;charset=utf-8', '1', '{"a":1}']);
    const text = toResponse('hi', { headers: { 'content-type': 'text/plain; version=0.0.4' } });
    expect([text.headers.get('content-type'), await text.text()]).toEqual(['text/plain; version=0.0.4', 'hi']);
    const empty = toResponse(undefined, { status: 204, headers: {} });
    expect([empty.status, await empty.text()]).toEqual([204, '']);
  });

  test("a handler's Response keeps its own headers and gains the set ones it lacks", () => {
    const response = toResponse(new Response('x', { headers: { vary: 'Accept' } }), { headers: { vary: 'Origin', 'x-b': '2' } });
    expect([response.headers.get('vary'), response.headers.get('x-b')]).toEqual(['Accept', '2']);
    expect(withHeaders(response, { 'x-c': 3 }).headers.get('x-c')).toBe('3');
  });
});

import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** What Elysia sends with a JSON answer: a cached one is sent the same way. */
const JSON_TYPE = 'application/json;charset=utf-8';

/**
 * The answer for a body that is rebuilt only when what it shows changes (GET /api/config's
 * view is built once per configuration): it is checked against the route's response schema
 * and serialised once per value, then every request sends the same text. A handler that
 * returns a Response is not validated again by Elysia, and the JSON of a ~3 KB record with
 * open-ended sections was most of such a request's cost (its schema check walks every key).
 *
 * `answer(value)` takes the value the handler would have returned; a value that does not
 * match the schema throws, as Elysia's own response check would (an INTERNAL_ERROR).
 */
export function cachedJson(schema: TSchema): (value: object) => Response {
  const texts = new WeakMap<object, string>();
  return (value) => {
    let text = texts.get(value);
    if (text === undefined) {
      if (!Value.Check(schema, value)) {
        const first = Value.Errors(schema, value).First();
        throw new Error(`response does not match its schema${first ? ` at ${first.path || '/'}: ${first.message}` : ''}`);
      }
      text = JSON.stringify(value);
      texts.set(value, text);
    }
    return new Response(text, { headers: { 'content-type': JSON_TYPE } });
  };
}

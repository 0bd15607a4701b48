import { OptionalKind, type TObject, type TSchema } from '@sinclair/typebox';
import { t } from './t';
import { defineRoute, type AnyRoute, type SocketSpec } from './route';
import { ErrorBodySchema } from './schemas';

type Json = Record<string, unknown>;

/** `/api/groups/:name` → `/api/groups/{name}`; a trailing `*` becomes `{path}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
}

/**
 * Plain JSON Schema: symbol-keyed metadata dropped, and t.Integer's string-or-number
 * unions for query and path numbers shown as the number they decode to.
 */
function plain(schema: TSchema): Json {
  return JSON.parse(JSON.stringify(schema), (_key, value: unknown) => {
    if (!value || typeof value !== 'object' || !Array.isArray((value as Json).anyOf)) return value;
    const options = (value as { anyOf: Json[] }).anyOf;
    const numeric = options.find((o) => o.type === 'integer' || o.type === 'number' || o.type === 'boolean');
    const stringForm = options.find((o) => o.type === 'string' && typeof o.format === 'string' && ['integer', 'numeric', 'boolean'].includes(o.format as string));
    if (options.length === 2 && numeric && stringForm) {
      const { anyOf: _drop, ...rest } = value as Json;
      return { ...rest, ...numeric };
    }
    return value;
  }) as Json;
}

function parameters(schema: TSchema | undefined, where: 'path' | 'query'): Json[] {
  if (!schema) return [];
  const object = schema as TObject;
  const required = new Set(object.required ?? []);
  return Object.entries(object.properties ?? {}).map(([name, property]) => ({
    // The route table names a trailing wildcard `*`; the document's template calls it {path}.
    name: name === '*' ? 'path' : name,
    in: where,
    required: where === 'path' || required.has(name),
    schema: plain(property),
  }));
}

/** A trailing `*` the params schema leaves undeclared is still a path parameter of the document. */
function wildcard(route: AnyRoute): Json[] {
  const declared = (route.params as TObject | undefined)?.properties ?? {};
  if (!route.path.endsWith('/*') || '*' in declared) return [];
  return [{ name: 'path', in: 'path', required: true, schema: { type: 'string', description: 'the rest of the path' } }];
}

function mediaOf(schema: TSchema): string {
  return (schema as { contentMediaType?: string }).contentMediaType ?? (schema.type === 'string' ? 'text/plain' : 'application/json');
}

function operation(route: AnyRoute): Json {
  const responses: Json = {};
  for (const [status, schema] of Object.entries(route.response)) {
    // A union whose members name their own media type (JSON or a file's bytes) lists each under its type.
    const members = (schema as { anyOf?: TSchema[] }).anyOf;
    const split = members?.some((m) => (m as { contentMediaType?: string }).contentMediaType) ? members : [schema];
    const content: Record<string, TSchema[]> = {};
    for (const member of split) (content[mediaOf(member)] ??= []).push(member);
    responses[status] = {
      description: route.summary,
      content: Object.fromEntries(Object.entries(content).map(([media, list]) => [media, { schema: plain(list.length === 1 ? list[0]! : t.Union(list)) }])),
    };
  }
  responses.default = { description: 'error body', content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } };
  const op: Json = {
    operationId: `${route.method.toLowerCase()}${openApiPath(route.path).replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
    summary: route.summary,
    tags: [route.tag],
    'x-svc-auth': route.auth,
    security: route.auth === 'public' ? [] : [{ bearer: [] }],
    parameters: [...parameters(route.params, 'path'), ...wildcard(route), ...parameters(route.query, 'query')],
    responses,
  };
  if (route.permission) op['x-svc-permission'] = route.permission;
  if (route.machineOnly) op['x-svc-machine-only'] = true;
  if (route.scopes?.length) op['x-svc-scopes'] = [...route.scopes];
  if (route.tenants) op['x-svc-tenants'] = { ...route.tenants };
  if (route.speaksForPlayers) op['x-svc-speaks-for-players'] = true;
  if (route.enrolment) op['x-svc-enrolment'] = true;
  if (route.rateLimit) op['x-svc-rate-limit'] = route.rateLimit;
  // A body declared t.Optional may be left out (its parameters then come from the query).
  if (route.body) op.requestBody = { required: !(OptionalKind in route.body), content: { 'application/json': { schema: plain(route.body) } } };
  else if (route.rawBody) op.requestBody = { required: true, content: { [route.rawBody.contentType]: {} } };
  return op;
}

/** OpenAPI 3.1 document generated from the declared routes; nothing is written by hand. */
export function buildOpenApi(version: string, routes: readonly AnyRoute[], sockets: readonly SocketSpec[]): Json {
  const paths: Record<string, Json> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc controller API',
      version,
      description: 'Every non-2xx response carries the error body {success:false, message, error}.',
    },
    paths,
    components: {
      schemas: { ErrorBody: plain(ErrorBodySchema) },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'master token, derived service token, a service’s own credential (SVC_API_TOKEN), cluster token, JWT or dashboard session token' } },
    },
    'x-svc-websockets': sockets.map((s) => ({
      path: openApiPath(s.path),
      auth: s.auth,
      summary: s.summary,
      ...(s.permission ? { 'x-svc-permission': s.permission } : {}),
      ...(s.tenants ? { 'x-svc-tenants': { ...s.tenants } } : {}),
    })),
  };
}

export function openApiRoute(version: string, routes: () => readonly AnyRoute[], sockets: readonly SocketSpec[]): AnyRoute {
  let cached: Json | undefined;
  return defineRoute({
    method: 'GET',
    path: '/api/openapi.json',
    auth: 'public',
    tag: 'system',
    summary: 'This API as an OpenAPI 3.1 document',
    response: { 200: t.Record(t.String(), t.Unknown()) },
    handler: () => (cached ??= buildOpenApi(version, routes(), sockets)),
  });
}

/**
 * Every route says what a dashboard session needs to call it: a permission node
 * (`x-svc-permission`) or no session at all (`x-svc-machine-only`), exactly one of the two on
 * every non-public operation. A route without either would admit only admin sessions, silently
 * locking a page away from everyone else; a route with both would be a contradiction. Read from
 * the OpenAPI document of a controller with every builtin module, so routes added later are
 * covered without edits here.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BUILTIN_MODULES } from '../../src/modules/builtin';
import { readJson, startController, type TestController } from '../support/controller';

interface Operation {
  'x-svc-auth': string;
  'x-svc-permission'?: string;
  'x-svc-machine-only'?: boolean;
}
interface Socket {
  path: string;
  auth: string;
  'x-svc-permission'?: string;
}
interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
  'x-svc-websockets': Socket[];
}

const NODE = /^svc\.dashboard\.[a-z_]+(\.[a-z_]+)*$/;
const MACHINE = 'machine-only';

let c: TestController;
let doc: OpenApiDoc;
let operations: { key: string; op: Operation }[];

beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES });
  const res = await c.api('/api/openapi.json', { token: null });
  expect(res.status).toBe(200);
  doc = await readJson(res);
  operations = Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })));
});
afterAll(() => c.stop());

/** What a session needs for one operation: its node, `machine-only`, or a description of the fault. */
function declared(op: Operation | undefined): string {
  if (!op) return 'missing from the document';
  const node = op['x-svc-permission'];
  const machine = op['x-svc-machine-only'] === true;
  if (node !== undefined && machine) return `both ${node} and machine-only`;
  if (machine) return MACHINE;
  return node ?? 'neither';
}

describe('route declarations', () => {
  test('the document lists every route the controller serves, modules included', () => {
    // Two routes on one method and path would leave only one in the document, hiding the other.
    expect(operations.length).toBe(c.controller.routes.length);
    const paths = Object.keys(doc.paths);
    for (const prefix of ['/api/players/online', '/api/displays', '/api/permissions/groups']) expect(paths.some((p) => p.startsWith(prefix))).toBe(true);
  });

  test('every non-public operation declares exactly one of a node or machine-only', () => {
    const faults = operations
      .filter(({ op }) => op['x-svc-auth'] !== 'public' && op['x-svc-auth'] !== 'session')
      .map(({ key, op }) => ({ key, declared: declared(op) }))
      .filter(({ declared: d }) => d !== MACHINE && !NODE.test(d))
      .map(({ key, declared: d }) => `${key}: ${d}`);
    expect(faults).toEqual([]);
  });

  test('session-level operations (a session\'s own sessions, TOTP, passkeys) declare neither: any live session may use them', () => {
    const own = operations.filter(({ op }) => op['x-svc-auth'] === 'session');
    expect(own.map(({ key }) => key)).toContain('GET /api/auth/me');
    expect(own.filter(({ op }) => declared(op) !== 'neither').map(({ key }) => key)).toEqual([]);
  });

  test('public operations declare neither (nothing to gate)', () => {
    const publicOps = operations.filter(({ op }) => op['x-svc-auth'] === 'public');
    expect(publicOps.map(({ key }) => key)).toContain('GET /api/health');
    expect(publicOps.filter(({ op }) => declared(op) !== 'neither').map(({ key }) => key)).toEqual([]);
  });

  test('every cluster-level operation is machine-only', () => {
    const cluster = operations.filter(({ op }) => op['x-svc-auth'] === 'cluster');
    expect(cluster.map(({ key }) => key)).toContain('GET /api/templates/{name}/download');
    expect(cluster.filter(({ op }) => declared(op) !== MACHINE).map(({ key }) => key)).toEqual([]);
  });

  // One or more rows of each kind from the dashboard permission table, and the machine-facing routes.
  test.each([
    ['GET', '/api/services', 'svc.dashboard.services.view'],
    ['GET', '/api/services/{name}/metrics/history', 'svc.dashboard.services.view'],
    ['GET', '/api/services/{name}/timeline', 'svc.dashboard.services.view'],
    ['GET', '/api/services/{name}/logs', 'svc.dashboard.services.console'],
    ['POST', '/api/services/{name}/exec', 'svc.dashboard.services.console'],
    ['POST', '/api/services/{name}/start', 'svc.dashboard.services.start'],
    ['POST', '/api/dedicated/{name}/stop', 'svc.dashboard.services.stop'],
    ['POST', '/api/services/{name}/migrate', 'svc.dashboard.nodes.manage'],
    ['GET', '/api/groups/{name}', 'svc.dashboard.groups.view'],
    ['DELETE', '/api/groups/{name}', 'svc.dashboard.groups.edit'],
    ['POST', '/api/groups/{name}/actions/start', 'svc.dashboard.services.start'],
    ['POST', '/api/groups/{name}/actions/restart', 'svc.dashboard.services.restart'],
    ['POST', '/api/groups/{name}/actions/stop', 'svc.dashboard.services.stop'],
    ['GET', '/api/groups/{name}/actions', 'svc.dashboard.groups.view'],
    ['PUT', '/api/scaling/schedules/{group}', 'svc.dashboard.scaling.manage'],
    ['GET', '/api/dedicated', 'svc.dashboard.dedicated.view'],
    ['POST', '/api/dedicated/modpack/import', 'svc.dashboard.dedicated.manage'],
    ['PUT', '/api/files/{scope}/{path}', 'svc.dashboard.services.edit_config'],
    ['GET', '/api/maintenance', 'svc.dashboard.maintenance.toggle'],
    ['DELETE', '/api/maintenance/whitelist', 'svc.dashboard.maintenance.toggle'],
    ['GET', '/api/loadbalancer', 'svc.dashboard.nodes.view'],
    ['GET', '/api/metrics/performance', 'svc.dashboard.metrics.view'],
    ['GET', '/api/audit', 'svc.dashboard.audit.view'],
    ['GET', '/api/timeline', 'svc.dashboard.audit.view'],
    ['POST', '/api/reload', 'svc.dashboard.reload'],
    ['POST', '/api/shutdown', 'svc.dashboard.shutdown'],
    ['PATCH', '/api/config', 'svc.dashboard.admin'],
    ['POST', '/api/modules/install/{id}', 'svc.dashboard.admin'],
    ['GET', '/api/controller/info', 'svc.dashboard.overview'],
    ['GET', '/api/players/online', 'svc.dashboard.players.view'],
    ['GET', '/api/players/history/{uuid}', 'svc.dashboard.players.history'],
    ['GET', '/api/permissions/groups', 'svc.dashboard.perms.view'],
    ['PUT', '/api/permissions/groups/{name}', 'svc.dashboard.perms.manage'],
    ['GET', '/api/displays', 'svc.dashboard.display.view'],
    ['PUT', '/api/displays/{name}', 'svc.dashboard.display.manage'],
    ['GET', '/api/proxy/motd', 'svc.dashboard.proxy.view'],
    ['PUT', '/api/permissions/players/{uuid}', MACHINE],
    ['POST', '/api/proxy/events', MACHINE],
    ['GET', '/api/proxy/config', MACHINE],
    ['PUT', '/api/services/{name}/players', MACHINE],
    ['GET', '/api/commands', MACHINE],
    ['POST', '/api/commands/{name}/execute', MACHINE],
    ['POST', '/api/console/complete', MACHINE],
    ['POST', '/api/tokens', MACHINE],
    ['GET', '/api/cluster/bootstrap', MACHINE],
  ])('%s %s → %s', (method, path, expected) => {
    expect(declared(doc.paths[path]?.[method.toLowerCase()])).toBe(expected);
  });
});

describe('socket declarations', () => {
  test('every WebSocket endpoint names the node a session needs to open it', () => {
    const sockets = doc['x-svc-websockets'];
    expect(sockets.length).toBe(c.controller.sockets.length);
    expect(sockets.filter((s) => !NODE.test(s['x-svc-permission'] ?? '')).map((s) => s.path)).toEqual([]);
    expect(Object.fromEntries(sockets.map((s) => [s.path, s['x-svc-permission']]))).toEqual({
      '/api/events': 'svc.dashboard.overview',
      '/api/services/{name}/console': 'svc.dashboard.services.console',
      '/api/console/stream': 'svc.dashboard.admin',
    });
  });
});

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { t } from '../../src/http/t';
import { ApiError } from '../../src/errors';
import { defineRoute } from '../../src/http/route';
import type { LazyModule, SvcModule } from '../../src/modules/module';
import { BUILTIN_MODULES } from '../../src/modules/builtin';
import { ModuleRegistry } from '../../src/modules/registry';
import { CORE_MIGRATIONS } from '../../src/storage/core-migrations';
import { expectErrorBody, readJson, startController, type TestController } from '../support/controller';

const stopped: string[] = [];

/** A complete module: config, migrations, error codes, routes, dashboard manifest, stop. */
const notesModule: SvcModule = {
  id: 'notes',
  name: 'Notes',
  version: '1.2.0',
  description: 'keeps notes',
  configSchema: t.Object({
    notes: t.Object({ max_length: t.Integer({ minimum: 1, default: 140, description: 'longest note' }) }),
  }),
  migrations: [
    { version: 1, name: 'notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT NOT NULL);' },
    { version: 2, name: 'notes author', sql: "ALTER TABLE notes ADD COLUMN author TEXT NOT NULL DEFAULT '';" },
  ],
  errors: { NOTE_NOT_FOUND: 404 },
  dashboard: { title: 'Notes', pages: [{ path: '/notes', title: 'Notes' }] },
  routes: (ctx) => [
    defineRoute({
      method: 'POST',
      path: '/api/notes',
      auth: 'service',
      tag: 'notes',
      summary: 'add a note',
      body: t.Object({ text: t.String({ minLength: 1 }) }),
      response: { 201: t.Object({ id: t.Integer(), maxLength: t.Integer() }) },
      handler: ({ body, set }) => {
        const id = ctx.kernel.db.query<{ id: number }, [string]>('INSERT INTO notes (text) VALUES (?) RETURNING id').get(body.text)!.id;
        set.status = 201;
        return { id, maxLength: ctx.config.notes!.max_length as number };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/notes/:id',
      auth: 'service',
      tag: 'notes',
      summary: 'one note',
      params: t.Object({ id: t.Integer() }),
      response: { 200: t.Object({ id: t.Integer(), text: t.String() }) },
      handler: ({ params }) => {
        const row = ctx.kernel.db.query<{ id: number; text: string }, [number]>('SELECT id, text FROM notes WHERE id = ?').get(params.id);
        if (!row) throw new ApiError('NOTE_NOT_FOUND', `note ${params.id} does not exist`);
        return row;
      },
    }),
  ],
  stop: () => void stopped.push('notes'),
};

/** A route with a bug: the kernel must answer INTERNAL_ERROR without leaking the stack. */
const buggyModule: SvcModule = {
  id: 'buggy',
  name: 'Buggy',
  version: '0.0.1',
  description: 'throws',
  routes: () => [
    defineRoute({
      method: 'GET',
      path: '/api/buggy',
      auth: 'service',
      tag: 'test',
      summary: 'throws',
      response: { 200: t.Object({ ok: t.Boolean() }) },
      handler: () => {
        throw new TypeError('secret internals at line 42');
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/buggy/shape',
      auth: 'service',
      tag: 'test',
      summary: 'answers outside its own response schema',
      response: { 200: t.Object({ ok: t.Boolean() }) },
      handler: () => ({ ok: 'yes' }),
    }),
  ],
};

describe('a crashing route', () => {
  test('answers 500 INTERNAL_ERROR with a reference; the stack goes only to the log', async () => {
    const c = await startController({ modules: [buggyModule] });
    const published: string[] = [];
    c.controller.kernel.bus.subscribe((e) => e.type === 'API_ERROR' && published.push(e.data.error!));
    try {
      for (const path of ['/api/buggy', '/api/buggy/shape']) {
        const res = await c.api(path);
        expect(res.status).toBe(500);
        const body = await expectErrorBody(res);
        expect(body.error).toBe('INTERNAL_ERROR');
        expect(body.message).not.toContain('secret internals');
        const ref = /ref ([0-9a-f]{8})/.exec(body.message)![1]!;
        expect(c.logs.find((l) => l.includes(ref))).toBeDefined();
        expect(published).toContain(`INTERNAL_ERROR ref ${ref}: GET ${path}`);
      }
      expect(c.logs.join('')).toContain('secret internals at line 42');
      const errors = await readJson(await c.api('/api/audit?action=API_ERROR'));
      expect(errors.total).toBe(0); // API_ERROR is for subscribers, not the audit log
    } finally {
      await c.stop();
    }
  });
});

describe('module interface', () => {
  let c: TestController;
  beforeAll(async () => {
    c = await startController({ modules: [notesModule] });
  });
  afterAll(() => c.stop());

  test('is listed active with its dashboard manifest', async () => {
    expect(await readJson(await c.api('/api/modules'))).toEqual({
      modules: [{ id: 'notes', name: 'Notes', version: '1.2.0', description: 'keeps notes', status: 'active', error: null, loaded: true, installed: true, restartRequired: false, dashboard: { title: 'Notes', pages: [{ path: '/notes', title: 'Notes' }] } }],
    });
  });

  test('its config file is written with commented defaults', () => {
    const file = join(c.dir, 'config/modules/notes/notes.toml');
    expect(existsSync(file)).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('# longest note');
    expect(text).toContain('max_length = 140');
  });

  test('its migrations ran in its own scope and its routes work with auth and validation', async () => {
    const scopes = c.controller.kernel.db.query<{ scope: string; version: number }, []>('SELECT scope, version FROM schema_migrations ORDER BY scope, version').all();
    expect(scopes).toEqual([...CORE_MIGRATIONS.map((m) => ({ scope: 'core', version: m.version })), { scope: 'notes', version: 1 }, { scope: 'notes', version: 2 }]);
    const created = await c.api('/api/notes', { token: c.service, method: 'POST', json: { text: 'hello' } });
    expect(created.status).toBe(201);
    expect(await readJson(created)).toEqual({ id: 1, maxLength: 140 });
    expect((await c.api('/api/notes', { token: null, method: 'POST', json: { text: 'x' } })).status).toBe(401);
    expect((await c.api('/api/notes', { method: 'POST', json: { text: '' } })).status).toBe(400);
    expect(await readJson(await c.api('/api/notes/1'))).toEqual({ id: 1, text: 'hello' });
  });

  test('its error codes render with their status', async () => {
    const res = await c.api('/api/notes/99');
    expect(res.status).toBe(404);
    expect(await expectErrorBody(res)).toEqual({ success: false, error: 'NOTE_NOT_FOUND', message: 'note 99 does not exist' });
  });

  test('its routes are in the OpenAPI document', async () => {
    const doc = await readJson(await c.api('/api/openapi.json'));
    expect(doc.paths['/api/notes/{id}'].get['x-svc-auth']).toBe('service');
  });

  test('MODULE_LOADED is published at start; stop runs the module stop hook', async () => {
    const d = await startController({ modules: [notesModule] });
    const entry = d.logs.find((line) => line.includes('module loaded'));
    expect(entry).toContain('notes');
    await d.stop();
    expect(stopped).toContain('notes');
  });
});

describe('a module config file that cannot be used', () => {
  test('stops nothing: the module runs on its defaults, and the log and the doctor name the file and key', async () => {
    const first = await startController({ modules: [notesModule] });
    const dir = first.dir;
    try {
      await first.stopKeepingDir();
      const file = join(dir, 'config', 'modules', 'notes', 'notes.toml');
      writeFileSync(file, '[notes]\nmax_length = "long"\n');
      const second = await startController({ modules: [notesModule], dir });
      const added = await second.api('/api/notes', { method: 'POST', json: { text: 'hi' } });
      expect(added.status).toBe(201);
      expect((await readJson(added)).maxLength).toBe(140);
      expect(second.logs.some((line) => line.includes('notes.toml') && line.includes('max_length') && line.includes('defaults'))).toBe(true);
      const doctor = await readJson(await second.api('/api/doctor'));
      const section = doctor.sections.find((s: { name: string }) => s.name === 'Module configuration');
      expect(section.findings[0].level).toBe('FAIL');
      expect(section.findings[0].message).toContain('max_length');
      await second.stopKeepingDir();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('install and uninstall', () => {
  test('uninstall keeps it loaded until the restart; install brings it back after the next', async () => {
    const first = await startController({ modules: [notesModule] });
    const dir = first.dir;
    try {
      const out = await first.api('/api/modules/uninstall/notes', { method: 'POST' });
      expect(out.status).toBe(200);
      expect(await readJson(out)).toEqual({ success: true, message: 'module notes uninstalled; restart the controller to unload it', restartRequired: true });
      expect((await readJson(await first.api('/api/modules'))).modules[0]).toMatchObject({ status: 'active', installed: false, restartRequired: true });
      expect(existsSync(join(dir, 'modules', 'notes.module'))).toBe(false);
      expect((await readJson(await first.api('/api/modules/uninstall/notes', { method: 'POST' }))).message).toBe('module notes is not installed');
      await first.stopKeepingDir();

      const second = await startController({ modules: [notesModule], dir });
      expect((await readJson(await second.api('/api/modules'))).modules[0]).toMatchObject({ status: 'available', loaded: false, installed: false, restartRequired: false });
      expect((await second.api('/api/notes/1')).status).toBe(404); // its routes are gone
      const installed = await second.api('/api/modules/install/notes', { method: 'POST' });
      expect(installed.status).toBe(201);
      expect((await readJson(installed)).restartRequired).toBe(true);
      expect((await second.api('/api/modules/install/notes', { method: 'POST' })).status).toBe(200);
      const audit = await readJson(await second.api('/api/audit?action=MODULE_INSTALLED'));
      expect(audit.entries[0]).toMatchObject({ action: 'MODULE_INSTALLED', target: 'notes' });
      await second.stopKeepingDir();

      const third = await startController({ modules: [notesModule], dir });
      expect((await readJson(await third.api('/api/modules'))).modules[0]).toMatchObject({ status: 'active', loaded: true, installed: true, restartRequired: false });
      const unknown = await third.api('/api/modules/install/nope', { method: 'POST' });
      expect(unknown.status).toBe(400);
      expect((await readJson(unknown)).message).toBe('this build has no module "nope" (modules: notes)');
      expect((await third.api('/api/modules/install/notes', { method: 'POST', token: third.service })).status).toBe(403);
      await third.stopKeepingDir();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ready hook and typed services', () => {
  test('ready runs after init, once services are recovered; a provided service is found by key, and gone after stop', async () => {
    const order: string[] = [];
    const directory = { online: () => [], onlineByName: () => undefined, knownByName: () => undefined, knownByUuid: () => undefined };
    const provider: SvcModule = {
      id: 'provider',
      name: 'Provider',
      version: '1',
      description: 'provides players',
      init: (ctx) => {
        order.push(`init:${ctx.kernel.modules.lookup('players') === undefined}`);
        ctx.kernel.modules.provide('players', directory);
      },
      ready: (ctx) => void order.push(`ready:${ctx.kernel.modules.lookup('players') === directory}`),
    };
    const c = await startController({ modules: [provider] });
    try {
      expect(order).toEqual(['init:true', 'ready:true']);
      expect(c.controller.kernel.modules.lookup('players')).toBe(directory);
      expect(() => c.controller.kernel.modules.provide('players', directory)).toThrow('provided twice');
    } finally {
      await c.stop();
    }
    expect(c.controller.kernel.modules.lookup('players')).toBeUndefined();
  });
});

describe('module lifecycle events and failed starts', () => {
  const failing = (id: string, stage: 'init' | 'ready'): SvcModule => ({
    id,
    name: `Failing ${stage}`,
    version: '1',
    description: `throws in ${stage}`,
    [stage]: () => {
      throw new Error(`${id} cannot open its socket`);
    },
    stop: () => void stopped.push(id),
    routes: () => [
      defineRoute({ method: 'GET', path: `/api/${id}`, auth: 'service', tag: 'test', summary: 'x', response: { 200: t.Object({ ok: t.Boolean() }) }, handler: () => ({ ok: true }) }),
    ],
  });

  test('MODULE_ENABLED once a module is ready, MODULE_DISABLED at shutdown; both audited', async () => {
    const c = await startController({ modules: [notesModule] });
    const events: string[] = [];
    c.controller.kernel.bus.subscribe((e) => (e.type === 'MODULE_ENABLED' || e.type === 'MODULE_DISABLED') && events.push(`${e.type} ${e.data.moduleId} ${e.data.moduleName}`));
    const audit = await readJson(await c.api('/api/audit?action=MODULE_ENABLED'));
    expect(audit.entries.map((e: { details: string }) => e.details)).toEqual([expect.stringContaining('notes')]);
    await c.stopKeepingDir();
    expect(events).toEqual(['MODULE_DISABLED notes Notes']);
    // The shutdown's MODULE_DISABLED reached the audit log before the database closed.
    const again = await startController({ modules: [notesModule], dir: c.dir });
    try {
      const disabled = await readJson(await again.api('/api/audit?action=MODULE_DISABLED'));
      expect(disabled.total).toBe(1);
    } finally {
      await again.stop();
      rmSync(c.dir, { recursive: true, force: true });
    }
  });

  test('a module whose init or ready throws is stopped and off (failed, with the reason); the controller and the others run on', async () => {
    const c = await startController({ modules: [notesModule, failing('brokeninit', 'init'), failing('brokenready', 'ready')] });
    try {
      const { modules } = await readJson(await c.api('/api/modules'));
      const byId = Object.fromEntries(modules.map((m: { id: string }) => [m.id, m]));
      expect(byId.notes).toMatchObject({ status: 'active', error: null, loaded: true });
      expect(byId.brokeninit).toMatchObject({ status: 'failed', error: 'brokeninit cannot open its socket', loaded: false, installed: true });
      expect(byId.brokenready).toMatchObject({ status: 'failed', error: 'brokenready cannot open its socket', loaded: false, installed: true });
      expect(stopped).toContain('brokeninit');
      expect(stopped).toContain('brokenready');
      // Their routes are not mounted; the healthy module's are.
      expect((await c.api('/api/brokenready')).status).toBe(404);
      expect((await c.api('/api/brokeninit')).status).toBe(404);
      expect((await c.api('/api/notes', { method: 'POST', json: { text: 'still here' } })).status).toBe(201);
      const disabled = await readJson(await c.api('/api/audit?action=MODULE_DISABLED'));
      expect(disabled.entries.map((e: { target: string }) => e.target).sort()).toEqual(['brokeninit', 'brokenready']);
      expect(c.logs.some((l) => l.includes('module \\"brokenready\\" failed to start (ready)') || l.includes('module "brokenready" failed to start (ready)'))).toBe(true);
    } finally {
      await c.stop();
    }
  });
});

describe('lazy modules (how the binary ships its modules)', () => {
  test('the code of an uninstalled module is never loaded; an installed one loads at start; one that cannot load is failed and the rest run on', async () => {
    const loads: string[] = [];
    const lazyNotes: LazyModule = { id: notesModule.id, name: notesModule.name, version: notesModule.version, description: notesModule.description, load: async () => (loads.push('notes'), notesModule) };
    const lazyIdle: LazyModule = { id: 'idle', name: 'Idle', version: '1.0.0', description: 'never installed here', load: async () => (loads.push('idle'), { id: 'idle', name: 'Idle', version: '1.0.0', description: 'x' }) };
    const lazyBroken: LazyModule = { id: 'unloadable', name: 'Unloadable', version: '1.0.0', description: 'its code is missing', load: async () => { throw new Error('chunk missing'); } };
    const first = await startController({ modules: [lazyNotes, lazyIdle, lazyBroken] });
    const dir = first.dir;
    try {
      expect(loads.sort()).toEqual(['idle', 'notes']);
      const { modules } = await readJson(await first.api('/api/modules'));
      const byId = Object.fromEntries(modules.map((m: { id: string }) => [m.id, m]));
      expect(byId.notes).toMatchObject({ status: 'active', loaded: true });
      expect(byId.unloadable).toMatchObject({ status: 'failed', error: 'chunk missing', loaded: false, installed: true });
      expect((await first.api('/api/notes', { method: 'POST', json: { text: 'lazy' } })).status).toBe(201);
      expect((await first.api('/api/modules/uninstall/idle', { method: 'POST' })).status).toBe(200);
    } finally {
      await first.stopKeepingDir();
    }
    loads.length = 0;
    const second = await startController({ modules: [lazyNotes, lazyIdle, lazyBroken], dir });
    try {
      // Listed from its manifest, its code untouched.
      expect(loads).toEqual(['notes']);
      const { modules } = await readJson(await second.api('/api/modules'));
      expect(modules.find((m: { id: string }) => m.id === 'idle')).toMatchObject({ status: 'available', installed: false, name: 'Idle' });
    } finally {
      await second.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('every built-in manifest loads the module it names, with the same id, name and version', async () => {
    for (const entry of BUILTIN_MODULES) {
      const module = await entry.load();
      expect({ id: module.id, name: module.name, version: module.version, description: module.description, dashboard: module.dashboard }).toEqual({
        id: entry.id,
        name: entry.name,
        version: entry.version,
        description: entry.description,
        dashboard: entry.dashboard,
      });
    }
  });
});

describe('ModuleRegistry validation', () => {
  const base = { name: 'x', version: '1', description: 'x' };
  test('refuses bad and duplicate ids, and the reserved core scope', () => {
    expect(() => new ModuleRegistry([{ id: 'Bad Id', ...base }])).toThrow('must match');
    expect(() => new ModuleRegistry([{ id: 'core', ...base }])).toThrow('reserved');
    expect(() => new ModuleRegistry([{ id: 'a', ...base }, { id: 'a', ...base }])).toThrow('twice');
  });
});

import { afterAll, beforeAll, expect } from 'bun:test';
import type { SvcEvent } from '../../../src/events/catalogue';
import { permsModule } from '../../../src/modules/perms';
import { expectErrorBody, readJson, startController, type TestController } from '../../support/controller';

type Init = Parameters<TestController['api']>[1];

/**
 * One controller with the permissions module for a route test file (started before the file's
 * own beforeAll, stopped after it), the events it publishes, and the calls the files share.
 */
export function permsController() {
  const events: SvcEvent[] = [];
  const h = {
    c: undefined as unknown as TestController,
    events,
    /** The module's events with their data and actor, flat. */
    permEvents: (): Record<string, string>[] => events.filter((e) => e.data.moduleId === 'perms').map((e) => ({ type: e.type, ...e.data, actor: e.actor })),
    api: (path: string, init?: Init) => h.c.api(`/api/permissions${path}`, init),
    /** GET with the service token (what plugins hold); must answer 200. */
    get: async (path: string) => {
      const res = await h.api(path, { token: h.c.service });
      expect(res.status).toBe(200);
      return readJson(res);
    },
    /** A change with the master token unless `token` says otherwise; must succeed. */
    send: async (path: string, method: string, json?: unknown, token?: string) => {
      const res = await h.api(path, { method, json, token });
      expect(res.status).toBeLessThan(300);
      return readJson(res);
    },
    expectError: async (res: Response, status: number, code: string, mention?: string) => {
      expect(res.status).toBe(status);
      const body = await expectErrorBody(res);
      expect(body.error).toBe(code);
      if (mention) expect(body.message).toContain(mention);
      return body;
    },
  };
  beforeAll(async () => {
    h.c = await startController({ modules: [permsModule] });
    h.c.controller.kernel.bus.subscribe((e) => void events.push(e));
  });
  afterAll(() => h.c.stop());
  return h;
}

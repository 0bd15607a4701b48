/**
 * GET /api/timeline against a controller with real processes: a group created by the API, a
 * service started, made READY and stopped, each on the network's timeline with who caused it;
 * the filters, paging back and following the tail; bad queries answered with the error body.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { expectErrorBody, readJson, startController, waitFor, type TestController } from '../support/controller';
import { fakePaperGroup } from '../fixtures/fake-paper-group';

let c: TestController;

interface Entry {
  id: number;
  timestamp: string;
  type: string;
  actor: string;
  service: string | null;
  group: string | null;
  data: Record<string, string>;
}
interface Page {
  entries: Entry[];
  next: number | null;
}

const page = async (query = ''): Promise<Page> => readJson(await c.api(`/api/timeline${query}`));

beforeAll(async () => {
  c = await startController({ timing: { stopTimeoutMs: 2000, drainPollMs: 20 } });
  expect((await c.api('/api/groups', { method: 'POST', json: fakePaperGroup('Lobby', { minInstances: 0, maxInstances: 1 }) })).status).toBe(201);
  expect((await c.api('/api/services/Lobby/start', { method: 'POST' })).status).toBe(201);
  await waitFor(async () => (await readJson(await c.api('/api/services/Lobby-1'))).state === 'READY', { what: 'Lobby-1 READY' });
  expect((await c.api('/api/services/Lobby-1/stop', { method: 'POST' })).status).toBe(200);
});
afterAll(() => c.stop());

describe('GET /api/timeline', () => {
  test('the group’s creation and the service’s run, newest first, with who caused each and the group of each', async () => {
    const { entries } = await page('?group=Lobby');
    expect(entries.map((e) => [e.type, e.actor, e.service]).reverse()).toEqual([
      ['GROUP_CREATED', 'api:admin', null],
      ['SERVICE_STARTING', 'api:admin', 'Lobby-1'],
      ['SERVICE_READY', 'system', 'Lobby-1'],
      ['SERVICE_STOPPING', 'api:admin', 'Lobby-1'],
      ['SERVICE_STOPPED', 'system', 'Lobby-1'],
    ]);
    expect(entries.every((e) => e.group === 'Lobby')).toBe(true);
    expect(entries.find((e) => e.type === 'SERVICE_STARTING')!.data).toMatchObject({ service: 'Lobby-1', group: 'Lobby', node: 'local' });
    // The service is gone; its own timeline route needs it, the network's still has it.
    expect((await c.api('/api/services/Lobby-1/timeline')).status).toBe(404);
  });

  test('filters by service, actor and types; they combine', async () => {
    expect((await page('?service=Lobby-1')).entries.map((e) => e.type)).toEqual(['SERVICE_STOPPED', 'SERVICE_STOPPING', 'SERVICE_READY', 'SERVICE_STARTING']);
    expect((await page('?service=Lobby-1&actor=api:admin')).entries.map((e) => e.type)).toEqual(['SERVICE_STOPPING', 'SERVICE_STARTING']);
    expect((await page('?type=SERVICE_READY,GROUP_CREATED')).entries.map((e) => e.type)).toEqual(['SERVICE_READY', 'GROUP_CREATED']);
    expect((await page('?service=Nope-1')).entries).toEqual([]);
  });

  test('paged back with before and next; followed with after, oldest first', async () => {
    const all = (await page('?limit=500')).entries;
    expect(all.length).toBeGreaterThanOrEqual(6);
    const first = await page('?limit=2');
    expect(first.entries.map((e) => e.id)).toEqual(all.slice(0, 2).map((e) => e.id));
    expect(first.next).toBe(all[1]!.id);
    const second = await page(`?limit=2&before=${first.next}`);
    expect(second.entries.map((e) => e.id)).toEqual(all.slice(2, 4).map((e) => e.id));
    const tail = await page(`?after=${all[3]!.id}`);
    expect(tail.entries.map((e) => e.id)).toEqual(all.slice(0, 3).map((e) => e.id).reverse());
    expect(tail.next).toBeNull();
    // A page shorter than the limit is the last one.
    expect((await page(`?limit=500&before=${all[all.length - 1]!.id}`)).next).toBeNull();
  });

  test('bad queries get the error body, naming what to fix', async () => {
    for (const query of ['?before=1&after=2', '?type=service_ready', '?type=A,,B', '?limit=x', '?before=-1']) {
      const res = await c.api(`/api/timeline${query}`);
      expect(res.status).toBe(400);
      const body = await expectErrorBody(res);
      expect(body.message.length).toBeGreaterThan(0);
    }
    expect((await page('?limit=0')).entries).toHaveLength(1);
    expect((await page(`?before=${2 ** 60}`)).entries.length).toBeGreaterThan(0);
  });

  test('a service token is refused: the timeline is the operator’s, like the audit log', async () => {
    const res = await c.api('/api/timeline', { token: c.service });
    expect(res.status).toBe(403);
  });
});

/**
 * GET /api/ws-ticket (svc): a browser signed in with an API token opens WebSockets with a
 * single-use `wt_` ticket standing for that token, never the token itself in a URL (the
 * dashboard works with the auth module uninstalled). A ticket admits what its token would.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readJson, startController, waitFor, type TestController } from '../support/controller';

let c: TestController;
beforeAll(async () => {
  c = await startController();
});
afterAll(() => c.stop());

const eventsUrl = (ticket: string) => `${c.url.replace('http', 'ws')}/api/events?token=${encodeURIComponent(ticket)}`;
const closeCode = (ws: WebSocket) => new Promise<number>((resolve) => ws.addEventListener('close', (e) => resolve(e.code)));

describe('GET /api/ws-ticket', () => {
  test('the master token gets a wt_ ticket valid 30 s; it opens /api/events once and hears events; a second use is refused', async () => {
    const before = Date.now();
    const answer = await c.api('/api/ws-ticket');
    expect(answer.status).toBe(200);
    const body = await readJson(answer);
    expect(Object.keys(body).sort()).toEqual(['expiresAt', 'ticket']);
    expect(body.ticket).toMatch(/^wt_[A-Za-z0-9_-]{32}$/);
    expect(body.expiresAt).toBeGreaterThanOrEqual(before + 30_000);
    expect(body.expiresAt).toBeLessThanOrEqual(Date.now() + 30_000);

    const subscribers = c.controller.eventSubscribers;
    const first = new WebSocket(eventsUrl(body.ticket));
    const frames: string[] = [];
    first.addEventListener('message', (m) => frames.push(String(m.data)));
    await waitFor(() => c.controller.eventSubscribers === subscribers + 1, { what: 'the ticket socket to subscribe' });
    c.controller.kernel.bus.publish('API_WARNING', { message: 'ticket socket check' });
    await waitFor(() => frames.some((f) => f.includes('ticket socket check')), { what: 'the event on the ticket socket' });
    expect(await closeCode(new WebSocket(eventsUrl(body.ticket)))).toBe(1008);
    first.close();
  });

  test('each ticket is new; an unknown or made-up ticket is refused', async () => {
    const a = (await readJson(await c.api('/api/ws-ticket'))).ticket;
    const b = (await readJson(await c.api('/api/ws-ticket'))).ticket;
    expect(a).not.toBe(b);
    expect(await closeCode(new WebSocket(eventsUrl('wt_madeupmadeupmadeupmadeupmadeupma')))).toBe(1008);
  });

  test('without a token, or with a wrong one, 401 (every credential kind is checked by auth-matrix.test.ts)', async () => {
    const anonymous = await c.api('/api/ws-ticket', { token: null });
    expect(anonymous.status).toBe(401);
    expect((await readJson(anonymous)).error).toBe('UNAUTHORIZED');
    const wrong = await c.api('/api/ws-ticket', { token: 'not-a-token' });
    expect(wrong.status).toBe(401);
    expect((await readJson(wrong)).error).toBe('AUTH_FAILED');
  });
});

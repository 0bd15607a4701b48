/**
 * An /api/events subscriber that stops reading, beside one that reads, on a real controller with
 * the spec's heartbeat (so only the backlog watch can drop the silent one within the test): the
 * silent one is closed once the server holds more than the per-socket limit for it; the reader
 * gets every frame and stays.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startController, waitFor, type TestController } from '../support/controller';
import { RawWebSocket } from '../support/raw-ws';

let c: TestController;
beforeAll(async () => {
  c = await startController();
});
afterAll(() => c.stop());

const BATCH = 16;
const PAYLOAD = 'x'.repeat(48 * 1024);

describe('a subscriber that stops reading', () => {
  test('is closed once its backlog passes the limit; a reader beside it gets every event and stays', async () => {
    const url = `${c.url.replace('http', 'ws')}/api/events?token=${c.master}`;
    let received = 0;
    let readerClosed: number | null = null;
    const reader = new WebSocket(url);
    reader.addEventListener('message', (m) => {
      if (String(m.data).includes('"GROUP_CREATED"')) received++;
    });
    reader.addEventListener('close', (e) => (readerClosed = e.code));
    await new Promise((resolve) => reader.addEventListener('open', resolve));
    const stalled = await RawWebSocket.connect(url);
    await waitFor(() => c.controller.eventSubscribers === 2, { what: 'both subscribed' });
    stalled.stopReading();

    // Batches of 768 KiB, each read whole by the reader before the next: the reader never lags,
    // the silent socket's kernel buffers fill and then the controller's backlog for it grows.
    let published = 0;
    while (c.controller.eventSubscribers === 2) {
      if (published * PAYLOAD.length > 256 * 1024 * 1024) throw new Error(`the silent subscriber was never closed (${published} events published)`);
      for (let i = 0; i < BATCH; i++) c.controller.kernel.bus.publish('GROUP_CREATED', { group: PAYLOAD });
      published += BATCH;
      await waitFor(() => received === published || c.controller.eventSubscribers < 2, { what: 'the reader to catch up', timeoutMs: 10_000, intervalMs: 1 });
    }
    expect(c.logs.some((line) => line.includes("stopped reading and were cut"))).toBe(true);
    // The reader: still subscribed, every frame there.
    c.controller.kernel.bus.publish('GROUP_CREATED', { group: 'after' });
    published++;
    await waitFor(() => received === published, { what: 'every event at the reader' });
    expect(readerClosed).toBeNull();
    expect(c.controller.eventSubscribers).toBe(1);
    reader.close();
    stalled.end();
  }, 60_000);
});

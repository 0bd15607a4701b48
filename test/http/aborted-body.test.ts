/**
 * A client that goes away in the middle of its request body (issue 38, smaller items) is no
 * fault of the controller: no ERROR in the log, no API_ERROR on the bus, one info line; the
 * server answers the next request as usual.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { BUILTIN_MODULES } from '../../src/modules/builtin';
import { MASTER_TOKEN, startController, waitFor, type TestController } from '../support/controller';

let c: TestController;
const events: string[] = [];
beforeAll(async () => {
  c = await startController({ modules: BUILTIN_MODULES });
  c.controller.kernel.bus.subscribe((e) => events.push(e.type));
});
afterAll(() => c.stop());

/** Sends the head and part of a body that announces far more, then closes the connection. */
async function cutOff(method: string, target: string, contentType: string): Promise<void> {
  const port = Number(new URL(c.url).port);
  const { promise, resolve } = Promise.withResolvers<void>();
  const socket = await Bun.connect({ hostname: '127.0.0.1', port, socket: { data() {}, close: () => resolve(), error: () => resolve() } });
  const head = `${method} ${target} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nauthorization: Bearer ${MASTER_TOKEN}\r\ncontent-type: ${contentType}\r\ncontent-length: 1000000\r\n\r\n`;
  socket.write(`${head}{"name":"Half`);
  socket.flush();
  socket.end();
  await promise;
}

const isError = (line: string) => / ERROR /.test(line);
const wentAway = () => c.logs.filter((line) => line.includes('the client went away before its request body was read'));

describe('a request body cut off by the client', () => {
  test('a JSON body: an info line, no ERROR, no API_ERROR', async () => {
    const errorsBefore = c.logs.filter(isError).length;
    await cutOff('POST', '/api/groups', 'application/json');
    await waitFor(() => wentAway().length === 1, { what: 'the request to be seen as abandoned' });
    expect(wentAway()[0]).toMatch(/^\S+ INFO +\[http\] .* path=\/api\/groups$/m);
    expect(c.logs.filter(isError).length).toBe(errorsBefore);
    expect(c.logs.join('')).not.toContain('request failed');
    expect(events).not.toContain('API_ERROR');
    // The controller answers as usual.
    expect((await c.api('/api/groups')).status).toBe(200);
  });
});

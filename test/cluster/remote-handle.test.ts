import { describe, expect, test } from 'bun:test';
import { RemoteProcessHandle } from '../../src/cluster/remote-handle';
import type { ControllerMessage } from '../../src/cluster/protocol';

function handle(connected = true) {
  const sent: ControllerMessage[] = [];
  const closed: string[] = [];
  const link = { send: (m: ControllerMessage) => void sent.push(m) };
  const h = new RemoteProcessHandle('Game-1', 'node-a', 4242, new Date(0), connected ? link : null, (c) => closed.push(c.name));
  return { h, sent, closed, link };
}

describe('RemoteProcessHandle', () => {
  test('stdin and signals become commands to the agent', () => {
    const { h, sent } = handle();
    h.write('say hi');
    h.signal('SIGTERM');
    expect(sent).toEqual([
      { type: 'SEND_COMMAND', serviceName: 'Game-1', command: 'say hi' },
      { type: 'SIGNAL_SERVICE', serviceName: 'Game-1', signal: 'SIGTERM' },
    ]);
    expect(() => h.write('two\nlines')).toThrow('line break');
  });

  test('lines reach listeners in order and stay readable in lastLines', () => {
    const { h } = handle();
    const seen: string[] = [];
    const off = h.onLine((l) => seen.push(l));
    h.deliver(['a', 'b']);
    off();
    h.deliver(['c']);
    expect(seen).toEqual(['a', 'b']);
    expect(h.lastLines(2)).toEqual(['b', 'c']);
  });

  test('detached: still alive, writes fail clearly, a kill waits for the node to return', () => {
    const { h, sent, link } = handle();
    h.detach();
    expect(h.isAlive()).toBe(true);
    expect(() => h.write('stop')).toThrow('node node-a of Game-1 is not connected');
    h.signal('SIGKILL');
    expect(sent).toEqual([]);
    h.attach(link, 5151);
    expect(h.pid).toBe(5151);
    expect(sent).toEqual([{ type: 'SIGNAL_SERVICE', serviceName: 'Game-1', signal: 'SIGKILL' }]);
  });

  test('the exit settles once; afterwards nothing is sent; close tells the owner once', async () => {
    const { h, sent, closed } = handle();
    h.end(137);
    h.end(0);
    expect(await h.exited).toEqual({ code: 137 });
    expect(h.isAlive()).toBe(false);
    h.signal('SIGKILL');
    expect(() => h.write('x')).toThrow('has ended');
    expect(sent).toEqual([]);
    h.close();
    h.close();
    expect(closed).toEqual(['Game-1']);
  });
});

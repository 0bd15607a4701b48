/**
 * A console's WebSocket, held off the page's main thread. A server printing 10,000 lines a
 * second sends 10,000 frames a second, and a browser hands each frame to the thread that owns
 * the socket as a task of its own: on the page's thread that alone took it over for a second at a
 * time. Here the frames arrive on this worker's thread and go to the page in batches, at most
 * one per FLUSH_MS.
 *
 * Plain JavaScript with no imports, copied as it is (imported `with { type: 'file' }`): the
 * bundler does not build worker entry points. The page's CSP allows it (same origin).
 *
 * From the page: {type: 'open', url} | {type: 'send', data} | {type: 'close'}
 * To the page:   {type: 'open'} | {type: 'data', items: string[]} | {type: 'closed', code, reason}
 * A batch is always posted before the `closed` that follows it.
 */
const FLUSH_MS = 16;
/** @type {WebSocket | null} */
let socket = null;
/** @type {string[]} */
let queue = [];
/** @type {ReturnType<typeof setTimeout> | 0} */
let timer = 0;

function flush() {
  clearTimeout(timer);
  timer = 0;
  if (queue.length === 0) return;
  postMessage({ type: 'data', items: queue });
  queue = [];
}

self.onmessage = (message) => {
  const order = message.data;
  if (order.type === 'open') {
    socket?.close();
    const opened = new WebSocket(order.url);
    socket = opened;
    opened.onopen = () => {
      if (socket === opened) postMessage({ type: 'open' });
    };
    opened.onmessage = (frame) => {
      if (socket !== opened) return;
      queue.push(String(frame.data));
      if (!timer) timer = setTimeout(flush, FLUSH_MS);
    };
    opened.onclose = (event) => {
      if (socket !== opened) return;
      flush();
      socket = null;
      postMessage({ type: 'closed', code: event.code, reason: event.reason });
    };
  } else if (order.type === 'send') {
    if (socket?.readyState === WebSocket.OPEN) socket.send(order.data);
  } else if (order.type === 'close') {
    // The page is done with this worker: close the socket cleanly, then end.
    const closing = socket;
    socket = null;
    queue = [];
    clearTimeout(timer);
    if (!closing || closing.readyState === WebSocket.CLOSED) return self.close();
    closing.onclose = () => self.close();
    closing.close();
  }
};

/**
 * How a console's socket reaches the page: through socket-worker.js, which holds the socket on
 * its own thread and hands the frames over in batches (a flood of small frames would otherwise
 * keep the page's thread busy, see there), or directly when a worker cannot be started (then it
 * is not tried again on this page).
 */
import workerUrl from './socket-worker.js' with { type: 'file' };

export interface TransportHandlers {
  open(): void;
  /** Frames in the order they came, a batch at a time. */
  data(items: readonly string[]): void;
  closed(code: number, reason: string): void;
}

export interface Transport {
  send(data: string): void;
  close(): void;
}

let workersFail = false;

export function openTransport(url: string, handlers: TransportHandlers): Transport {
  if (!workersFail && typeof Worker !== 'undefined') {
    try {
      return throughWorker(url, handlers);
    } catch {
      workersFail = true;
    }
  }
  return direct(url, handlers);
}

function throughWorker(url: string, handlers: TransportHandlers): Transport {
  const worker = new Worker(workerUrl);
  let done = false;
  const finish = (code: number, reason: string) => {
    if (done) return;
    done = true;
    worker.terminate();
    handlers.closed(code, reason);
  };
  worker.onmessage = (message: MessageEvent<{ type: string; items?: string[]; code?: number; reason?: string }>) => {
    if (done) return;
    const said = message.data;
    if (said.type === 'open') handlers.open();
    else if (said.type === 'data') handlers.data(said.items ?? []);
    else if (said.type === 'closed') finish(said.code ?? 1006, said.reason ?? '');
  };
  worker.onerror = (event) => {
    event.preventDefault();
    workersFail = true;
    finish(1006, 'the console’s worker could not be started');
  };
  worker.postMessage({ type: 'open', url });
  return {
    send: (data) => worker.postMessage({ type: 'send', data }),
    close: () => {
      if (done) return;
      done = true;
      // The worker closes the socket cleanly and ends itself.
      worker.postMessage({ type: 'close' });
    },
  };
}

function direct(url: string, handlers: TransportHandlers): Transport {
  const socket = new WebSocket(url);
  let done = false;
  socket.onopen = () => handlers.open();
  socket.onmessage = (message) => handlers.data([String(message.data)]);
  socket.onclose = (event) => {
    if (done) return;
    done = true;
    handlers.closed(event.code, event.reason);
  };
  return {
    send: (data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(data);
    },
    close: () => {
      done = true;
      socket.close();
    },
  };
}

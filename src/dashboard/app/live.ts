/**
 * The controller's live events (/api/events) for every page, over one WebSocket shared by all
 * listeners. A browser cannot set headers on a socket and a token must never sit in a URL, so
 * each connection first fetches a single-use `wt_` ticket (socketTicket) and passes that in
 * ?token=. A dropped connection comes back by itself (1 s, 2 s, …
 * up to 10 s); `onReconnect` listeners hear every opening, so a page reloads what it may have missed.
 */
import { api, signInKind } from './api';

/** One frame of /api/events: the spec's event (its data values are strings). */
export interface LiveEvent {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}

type EventListener = (event: LiveEvent) => void;

const listeners = new Set<EventListener>();
const reconnectListeners = new Set<() => void>();
let socket: WebSocket | null = null;
let retryMs = 1_000;
let retryTimer: ReturnType<typeof setTimeout> | undefined;

/**
 * A single-use `wt_` ticket for ?token= on any of the API's WebSockets: a session's comes from
 * the auth module (GET /api/auth/ws-ticket), an API token's from core (GET /api/ws-ticket).
 */
export async function socketTicket(): Promise<string> {
  return (await api<{ ticket: string }>(signInKind() === 'session' ? '/api/auth/ws-ticket' : '/api/ws-ticket')).ticket;
}

/** Hears every event until the returned function is called; the socket closes with the last listener. */
export function onLiveEvent(listener: EventListener): () => void {
  listeners.add(listener);
  if (listeners.size === 1) connect();
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) disconnect();
  };
}

/** Called each time the socket opens (the first time too): a page reloads what it may have missed meanwhile. */
export function onReconnect(listener: () => void): () => void {
  reconnectListeners.add(listener);
  return () => reconnectListeners.delete(listener);
}

async function connect(): Promise<void> {
  clearTimeout(retryTimer);
  let ticket: string;
  try {
    ticket = await socketTicket();
  } catch {
    return scheduleRetry();
  }
  if (listeners.size === 0) return;
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  const ws = new WebSocket(`${scheme}//${location.host}/api/events?token=${encodeURIComponent(ticket)}`);
  socket = ws;
  ws.onopen = () => {
    retryMs = 1_000;
    // Also the first time: anything published between a page's first fetch and this moment was missed.
    for (const listener of reconnectListeners) listener();
  };
  ws.onmessage = (message) => {
    let frame: unknown;
    try {
      frame = JSON.parse(String(message.data));
    } catch {
      return;
    }
    const event = frame as Partial<LiveEvent>;
    if (typeof event.type !== 'string' || typeof event.data !== 'object' || event.data === null) return; // heartbeats and the like
    for (const listener of listeners) listener(event as LiveEvent);
  };
  ws.onclose = () => {
    if (socket !== ws) return;
    socket = null;
    if (listeners.size > 0) scheduleRetry();
  };
}

function scheduleRetry(): void {
  clearTimeout(retryTimer);
  retryTimer = setTimeout(() => void connect(), retryMs);
  retryMs = Math.min(retryMs * 2, 10_000);
}

function disconnect(): void {
  clearTimeout(retryTimer);
  const ws = socket;
  socket = null;
  ws?.close();
}

/**
 * `/api/events` opened the way a plugin or the dashboard keeps it: the token in the
 * Authorization header, every frame parsed and handed to `onFrame`. Resolves once open.
 */
export async function openEventSocket<F>(apiUrl: string, token: string, onFrame: (frame: F) => void): Promise<WebSocket> {
  const ws = new WebSocket(`${apiUrl.replace(/^http/, 'ws')}/api/events`, { headers: { authorization: `Bearer ${token}` } });
  ws.addEventListener('message', (m) => onFrame(JSON.parse(String(m.data)) as F));
  await new Promise((resolve, reject) => {
    ws.addEventListener('open', resolve);
    ws.addEventListener('error', reject);
  });
  return ws;
}

/**
 * One HTTP/1.1 request over a raw TCP socket, sent byte for byte as given: unlike fetch/URL,
 * nothing normalises the request target (`..`, `%2e`, backslashes reach the server as typed).
 */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text: string;
}

export interface RawRequest {
  method: string;
  /** The request target, exactly as it goes on the request line. */
  target: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  timeoutMs?: number;
}

export async function rawRequest(port: number, request: RawRequest): Promise<RawResponse> {
  const body = typeof request.body === 'string' ? Buffer.from(request.body) : request.body ? Buffer.from(request.body) : null;
  // The Host must be the real address: the router reads the path after the authority.
  const headers: Record<string, string> = { host: `127.0.0.1:${port}`, connection: 'close', ...request.headers };
  if (body) headers['content-length'] = String(body.length);
  const head = `${request.method} ${request.target} HTTP/1.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  const chunks: Buffer[] = [];
  const { promise, resolve, reject } = Promise.withResolvers<Buffer>();
  const timer = setTimeout(() => reject(new Error(`no complete answer to ${request.method} ${request.target.slice(0, 100)} within ${request.timeoutMs ?? 10_000} ms`)), request.timeoutMs ?? 10_000);
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port,
    socket: {
      data: (_s, data) => void chunks.push(Buffer.from(data)),
      close: () => resolve(Buffer.concat(chunks)),
      error: (_s, error) => reject(error),
    },
  });
  socket.write(body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1'));
  socket.flush();
  try {
    return parseResponse(await promise);
  } finally {
    clearTimeout(timer);
    socket.end();
  }
}

function parseResponse(raw: Buffer): RawResponse {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`not an HTTP response: ${raw.subarray(0, 200).toString('latin1')}`);
  const [statusLine, ...lines] = raw.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1]);
  if (!status) throw new Error(`bad status line: ${statusLine}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(split + 4);
  if (headers['transfer-encoding']?.toLowerCase() === 'chunked') body = dechunk(body);
  return { status, headers, body, text: body.toString('utf8') };
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', pos);
    if (lineEnd < 0) break;
    const size = parseInt(data.subarray(pos, lineEnd).toString('latin1'), 16);
    if (!size) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    pos = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

import { ApiError } from '../../errors';

/** The headers of one part that matter here. */
export interface PartHead {
  /** The form field name as sent (quoted-string unescaped, no percent-decoding). */
  name: string;
  filename: string | null;
}

const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/** The boundary of a `multipart/form-data` content type, or null when it is not one. */
export function boundaryOf(contentType: string | null): string | null {
  if (!contentType) return null;
  const [type, ...params] = contentType.split(';');
  if (type!.trim().toLowerCase() !== 'multipart/form-data') return null;
  for (const param of params) {
    const match = /^\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;]{1,70}))\s*$/i.exec(param);
    if (match) return match[1] ?? match[2]!;
  }
  return null;
}

type State = 'preamble' | 'headers' | 'body' | 'delimited' | 'done';

const invalid = (message: string) => new ApiError('VALIDATION_FAILED', `multipart body: ${message}`);

/**
 * A streaming `multipart/form-data` reader (RFC 7578): parts are read one after another and
 * each part's body is handed out in chunks as it arrives, so an upload of any size passes
 * through in bounded memory. Use: `for (let head; (head = await r.nextPart()); ) for await
 * (const chunk of r.body()) ...`; a part whose body is not read is skipped.
 *
 * More than `maxBytes` in total is PAYLOAD_TOO_LARGE (413); a malformed or truncated body is
 * VALIDATION_FAILED (400).
 */
export class MultipartReader {
  private readonly reader: { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> };
  /** `\r\n--boundary`; a CRLF is put in front of the stream so the first boundary matches it too. */
  private readonly delimiter: Buffer;
  private buf: Buffer = Buffer.from(CRLF);
  private pos = 0;
  private ended = false;
  private state: State = 'preamble';
  private total = 0;

  constructor(
    stream: ReadableStream<Uint8Array>,
    boundary: string,
    private readonly maxBytes: number,
  ) {
    this.reader = stream.getReader();
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** Bytes of the request body read so far. */
  get bytesRead(): number {
    return this.total;
  }

  /** The next part's headers, or null after the closing boundary. */
  async nextPart(): Promise<PartHead | null> {
    if (this.state === 'body') for await (const _ of this.body()) void _;
    if (this.state === 'preamble') await this.skipToDelimiter();
    if (this.state === 'done') return null;
    // Right after a delimiter: `--` closes the body, else optional padding and CRLF start a part.
    await this.need(2);
    if (this.buf[this.pos] === 0x2d && this.buf[this.pos + 1] === 0x2d) {
      this.state = 'done';
      return null;
    }
    return this.readHeaders();
  }

  /** The current part's body, chunk by chunk; the chunks stay valid after the next read. */
  async *body(): AsyncGenerator<Uint8Array> {
    if (this.state !== 'body') return;
    const keep = this.delimiter.length - 1;
    for (;;) {
      const at = this.buf.indexOf(this.delimiter, this.pos);
      if (at >= 0) {
        const chunk = this.buf.subarray(this.pos, at);
        this.pos = at + this.delimiter.length;
        this.state = 'delimited';
        if (chunk.length > 0) yield chunk;
        return;
      }
      // Everything but a possible start of the delimiter can go out now.
      const safe = this.buf.length - keep;
      if (safe > this.pos) {
        const chunk = this.buf.subarray(this.pos, safe);
        this.pos = safe;
        yield chunk;
      }
      if (!(await this.fill())) throw invalid('the body ended inside a part (no closing boundary)');
    }
  }

  /** Stops reading the request body (after an error or an early answer). */
  async cancel(): Promise<void> {
    this.state = 'done';
    await this.reader.cancel().catch(() => undefined);
  }

  private async skipToDelimiter(): Promise<void> {
    for (;;) {
      const at = this.buf.indexOf(this.delimiter, this.pos);
      if (at >= 0) {
        this.pos = at + this.delimiter.length;
        this.state = 'delimited';
        return;
      }
      this.pos = Math.max(this.pos, this.buf.length - (this.delimiter.length - 1));
      if (!(await this.fill())) throw invalid('no boundary found; send multipart/form-data with the boundary of its Content-Type');
    }
  }

  private async readHeaders(): Promise<PartHead> {
    // Transport padding (spaces, tabs) may follow the boundary before its CRLF.
    for (;;) {
      while (this.pos < this.buf.length && (this.buf[this.pos] === 0x20 || this.buf[this.pos] === 0x09)) this.pos++;
      if (this.pos < this.buf.length) break;
      if (!(await this.fill())) throw invalid('the body ended after a boundary');
    }
    await this.need(2);
    if (this.buf[this.pos] !== 0x0d || this.buf[this.pos + 1] !== 0x0a) throw invalid('a boundary is not followed by a line break');
    this.state = 'headers';
    // Search from the boundary line's own CRLF, so a part without headers (CRLF CRLF) is found too.
    for (;;) {
      const at = this.buf.indexOf(HEADER_END, this.pos);
      if (at - this.pos > MAX_HEADER_BYTES || (at < 0 && this.buf.length - this.pos > MAX_HEADER_BYTES)) throw invalid(`part headers longer than ${MAX_HEADER_BYTES} bytes`);
      if (at >= 0) {
        const text = this.buf.subarray(this.pos + 2, at).toString('utf8');
        this.pos = at + HEADER_END.length;
        this.state = 'body';
        return parseHeaders(text);
      }
      if (!(await this.fill())) throw invalid('the body ended inside part headers');
    }
  }

  private async need(bytes: number): Promise<void> {
    while (this.buf.length - this.pos < bytes) {
      if (!(await this.fill())) throw invalid('the body ended early (no closing boundary)');
    }
  }

  /** Appends the next chunk of the stream; false at its end. */
  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const { done, value } = await this.reader.read();
    if (done || !value) {
      this.ended = true;
      return false;
    }
    this.total += value.byteLength;
    if (this.total > this.maxBytes) {
      await this.cancel();
      throw new ApiError('PAYLOAD_TOO_LARGE', `request body exceeds the limit of ${this.maxBytes} bytes`);
    }
    const rest = this.buf.subarray(this.pos);
    const chunk = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
    // A fresh buffer each time: chunks handed out earlier keep their bytes.
    this.buf = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    this.pos = 0;
    return true;
  }
}

/** `Content-Disposition: form-data; name="..."; filename="..."` of a part's header block. */
function parseHeaders(text: string): PartHead {
  let disposition: string | null = null;
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === 'content-disposition') disposition = line.slice(colon + 1);
  }
  if (disposition === null) throw invalid('a part has no Content-Disposition header');
  const params = new Map<string, string>();
  const pattern = /;\s*([A-Za-z0-9*_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]*))/g;
  for (const match of disposition.matchAll(pattern)) {
    const value = match[2] !== undefined ? match[2].replace(/\\(.)/g, '$1') : match[3]!;
    params.set(match[1]!.toLowerCase(), value);
  }
  const name = params.get('name');
  if (name === undefined) throw invalid('a part has no name in its Content-Disposition');
  return { name, filename: params.get('filename') ?? null };
}

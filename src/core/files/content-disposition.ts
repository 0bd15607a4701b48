/**
 * `Content-Disposition: attachment` naming a file (RFC 6266): a plain ASCII `filename` for old
 * clients (anything else, quotes, backslashes and `%` replaced by `_`, so nothing can close the
 * quoted string or be decoded into something else) and the exact name as `filename*` in
 * RFC 8187's UTF-8 percent-encoding.
 */
export function attachment(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc8187(name)}`;
}

/** Percent-encodes everything outside RFC 8187's attr-char. */
function encodeRfc8187(value: string): string {
  return encodeURIComponent(value).replace(/['()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

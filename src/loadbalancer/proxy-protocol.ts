import { isIPv4, isIPv6 } from 'node:net';

/**
 * PROXY protocol version 2 (haproxy's proxy-protocol.txt, section 2.2), the binary header a
 * proxy such as Velocity (`haproxy-protocol = true`) reads before the Minecraft handshake to
 * learn the player's real address:
 *
 *   12 bytes  signature  0D 0A 0D 0A 00 0D 0A 51 55 49 54 0A
 *    1 byte   version (high nibble, 2) | command (low nibble: 0 LOCAL, 1 PROXY)
 *    1 byte   family (high nibble: 1 INET, 2 INET6) | transport (low nibble: 1 STREAM)
 *    2 bytes  length of what follows, big-endian
 *   INET:  src addr (4), dst addr (4), src port (2), dst port (2)        → length 12
 *   INET6: src addr (16), dst addr (16), src port (2), dst port (2)      → length 36
 *
 * No TLVs are sent.
 */
export const PROXY_V2_SIGNATURE = Uint8Array.of(0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a);

const VERSION_2 = 0x20;
const COMMAND_LOCAL = 0x00;
const COMMAND_PROXY = 0x01;
const TCP_OVER_IPV4 = 0x11;
const TCP_OVER_IPV6 = 0x21;
const UNSPEC = 0x00;

export interface ProxiedConnection {
  /** The client's address and port, as the load balancer's socket sees them. */
  sourceAddress: string;
  sourcePort: number;
  /** The load balancer's own address and port on that connection. */
  destinationAddress: string;
  destinationPort: number;
}

/**
 * The PROXY-command header for one relayed TCP connection. Both addresses go out in one
 * family: IPv4 when both are IPv4 (an IPv4-mapped IPv6 address such as `::ffff:1.2.3.4`,
 * which a dual-stack listener reports, counts as IPv4), else IPv6 (an IPv4 address then
 * goes as its mapped form). Throws on a string that is not an IP address.
 */
export function encodeProxyV2(connection: ProxiedConnection): Uint8Array {
  const src = parseIp(connection.sourceAddress);
  const dst = parseIp(connection.destinationAddress);
  checkPort(connection.sourcePort);
  checkPort(connection.destinationPort);
  const v4 = src.length === 4 && dst.length === 4;
  const srcBytes = v4 ? src : toIpv6(src);
  const dstBytes = v4 ? dst : toIpv6(dst);
  const addressLength = srcBytes.length * 2 + 4;
  const header = new Uint8Array(16 + addressLength);
  header.set(PROXY_V2_SIGNATURE, 0);
  header[12] = VERSION_2 | COMMAND_PROXY;
  header[13] = v4 ? TCP_OVER_IPV4 : TCP_OVER_IPV6;
  const view = new DataView(header.buffer);
  view.setUint16(14, addressLength);
  header.set(srcBytes, 16);
  header.set(dstBytes, 16 + srcBytes.length);
  view.setUint16(16 + srcBytes.length * 2, connection.sourcePort);
  view.setUint16(18 + srcBytes.length * 2, connection.destinationPort);
  return header;
}

/**
 * The LOCAL-command header: "this connection is the balancer's own, not a relayed client"
 * (what the format defines for health checks). A proxy that requires the header accepts it
 * and keeps the real socket addresses.
 */
export function encodeProxyV2Local(): Uint8Array {
  const header = new Uint8Array(16);
  header.set(PROXY_V2_SIGNATURE, 0);
  header[12] = VERSION_2 | COMMAND_LOCAL;
  header[13] = UNSPEC;
  return header;
}

function checkPort(port: number): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`not a TCP port: ${port}`);
}

/** 4 bytes for IPv4 (and IPv4-mapped IPv6), 16 for other IPv6. A zone (`%eth0`) is dropped. */
export function parseIp(address: string): Uint8Array {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return Uint8Array.from(bare.split('.').map(Number));
  const unzoned = bare.replace(/%.*$/, '');
  if (!isIPv6(unzoned)) throw new Error(`not an IP address: ${address}`);
  const bytes = parseIpv6(unzoned);
  const mapped = bytes.subarray(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  return mapped ? bytes.slice(12) : bytes;
}

function toIpv6(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 16) return bytes;
  const out = new Uint8Array(16);
  out[10] = 0xff;
  out[11] = 0xff;
  out.set(bytes, 12);
  return out;
}

/** A syntactically valid IPv6 address (checked by the caller) to its 16 bytes. */
function parseIpv6(address: string): Uint8Array {
  let text = address;
  const tail: number[] = [];
  // A trailing dotted IPv4 part (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) fills the last 4 bytes.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    tail.push(...dotted[1]!.split('.').map(Number));
    text = `${text.slice(0, -dotted[1]!.length)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = rest === undefined ? [] : groups(rest);
  const fill = rest === undefined ? 0 : 8 - left.length - right.length;
  const words = [...left, ...new Array<number>(fill).fill(0), ...right];
  const out = new Uint8Array(16);
  words.forEach((word, i) => {
    out[i * 2] = word >> 8;
    out[i * 2 + 1] = word & 0xff;
  });
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

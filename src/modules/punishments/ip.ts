import { isIP } from '../../core/net/ip';

/**
 * One spelling per address, so a ban stored from the dashboard matches the address the proxy
 * reports: brackets and an IPv6 zone dropped, IPv6 in its canonical compressed lower-case
 * form (the URL standard's serialisation), IPv4-mapped IPv6 (`::ffff:1.2.3.4`) as plain IPv4.
 * Undefined when the text is no IP address.
 */
export function normalizeIp(text: string): string | undefined {
  let ip = text.trim();
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  const zone = ip.indexOf('%');
  if (zone !== -1) ip = ip.slice(0, zone);
  const version = isIP(ip);
  if (version === 4) return ip;
  if (version !== 6) return undefined;
  const canonical = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const high = Number.parseInt(mapped[1]!, 16);
  const low = Number.parseInt(mapped[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

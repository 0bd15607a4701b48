const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const IPV6_CHARS = /^[0-9A-Fa-f:.]+$/;

/**
 * 4 or 6 for an IP address, 0 otherwise: node:net's isIP for addresses without a zone
 * (`%eth0`, which callers strip), without loading node:net at start for it. IPv6 is judged by
 * the URL parser's host rules (RFC 4291 spellings, IPv4-embedded forms included).
 */
export function isIP(address: string): 0 | 4 | 6 {
  if (IPV4.test(address)) return 4;
  return address.includes(':') && IPV6_CHARS.test(address) && URL.canParse(`http://[${address}]/`) ? 6 : 0;
}

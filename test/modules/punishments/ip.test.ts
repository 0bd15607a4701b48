import { describe, expect, test } from 'bun:test';
import { normalizeIp } from '../../../src/modules/punishments/ip';

describe('normalizeIp: one spelling per address', () => {
  const valid: [string, string][] = [
    ['1.2.3.4', '1.2.3.4'],
    ['255.255.255.255', '255.255.255.255'],
    ['0.0.0.0', '0.0.0.0'],
    [' 10.0.0.1 ', '10.0.0.1'],
    ['::1', '::1'],
    ['::', '::'],
    ['0:0:0:0:0:0:0:1', '::1'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['2001:db8::1', '2001:db8::1'],
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:ff00:0042:8329', '2001:db8::ff00:42:8329'],
    // The first of two equally long zero runs is the one compressed; a lone zero never is.
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:db8:0:0:1:0:0:0', '2001:db8:0:0:1::'],
    ['FE80::ABCD', 'fe80::abcd'],
    ['[2001:db8::1]', '2001:db8::1'],
    ['[::1]', '::1'],
    ['fe80::1%eth0', 'fe80::1'],
    ['[fe80::1%eth0]', 'fe80::1'],
    ['FE80::1%25', 'fe80::1'],
    ['::ffff:1.2.3.4', '1.2.3.4'],
    ['::FFFF:192.168.0.1', '192.168.0.1'],
    ['::ffff:c0a8:1', '192.168.0.1'],
    ['0:0:0:0:0:ffff:102:304', '1.2.3.4'],
    ['[::ffff:127.0.0.1]', '127.0.0.1'],
    ['::ffff:0.0.0.0', '0.0.0.0'],
    ['::ffff:255.255.255.255', '255.255.255.255'],
    // Only the mapped prefix reads as IPv4; the deprecated compatible form and NAT64 stay IPv6.
    ['::1.2.3.4', '::102:304'],
    ['64:ff9b::1.2.3.4', '64:ff9b::102:304'],
    ['::ffff:0:1.2.3.4', '::ffff:0:102:304'],
  ];
  test.each(valid)('%p → %p', (text, expected) => {
    expect(normalizeIp(text)).toBe(expected);
  });

  test.each(valid)('%p normalizes to a fixed point', (text) => {
    const once = normalizeIp(text);
    if (once === undefined) throw new Error(`${text} was refused`);
    expect(normalizeIp(once)).toBe(once);
  });

  test('every spelling of one address gives the same answer', () => {
    const spellings = ['::ffff:7f00:1', '::FFFF:127.0.0.1', '[::ffff:127.0.0.1]', '0:0:0:0:0:ffff:7f00:0001', ' 127.0.0.1 '];
    expect(new Set(spellings.map(normalizeIp))).toEqual(new Set(['127.0.0.1']));
  });

  const invalid = [
    '',
    '   ',
    'localhost',
    'abc',
    'example.com',
    '256.1.1.1',
    '1.2.3',
    '1.2.3.4.5',
    '01.2.3.4',
    '1.2.3.-4',
    '1.2.3.4:25565',
    '[::1]:25565',
    '[::1',
    '::1]',
    '[]',
    '%eth0',
    '2001:db8::1::1',
    '1:2:3:4:5:6:7:8:9',
    '12345::1',
    'g::1',
    '::ffff:1.2.3.256',
    'http://1.2.3.4/',
  ];
  test.each(invalid)('%p is no address', (text) => {
    expect(normalizeIp(text)).toBeUndefined();
  });
});

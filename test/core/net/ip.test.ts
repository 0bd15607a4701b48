/** isIP without node:net: the same answers as node:net's for every address without a zone. */
import { describe, expect, test } from 'bun:test';
import { isIP as nodeIsIP } from 'node:net';
import { isIP } from '../../../src/core/net/ip';

const CASES = [
  '127.0.0.1', '0.0.0.0', '255.255.255.255', '10.1.2.3', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', '1.02.3.4', '00.0.0.0', '1.2.3.4 ', ' 1.2.3.4', '1.2.3.-4', '',
  '::', '::1', '2001:db8::1', '2001:DB8:0:0:8:800:200C:417A', 'fe80::1', '::ffff:1.2.3.4', '::ffff:256.1.1.1', '1:2:3:4:5:6:7:8', '1:2:3:4:5:6:7:8:9', ':::',
  '1::2::3', 'g::1', '[::1]', '::1]/x', '1::]/x', '::1/64', 'localhost', 'example.com', '1.2.3.4:25565', 'unknown', '12345::', '1:2:3:4:5:6:1.2.3.4',
];

describe('isIP', () => {
  test.each(CASES)('%p', (address) => {
    expect(isIP(address)).toBe(nodeIsIP(address) as 0 | 4 | 6);
  });
});

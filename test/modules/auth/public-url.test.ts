import { describe, expect, test } from 'bun:test';
import { fallbackPublicUrl, FALLBACK_PUBLIC_URL } from '../../../src/modules/auth/runtime';

/** Where magic links and passkeys point when no [dashboard] public_url is set. */
describe('the dashboard address when none is configured', () => {
  test.each([
    [true, 8080, 'http://localhost:8080'],
    [true, 25580, 'http://localhost:25580'],
    // Port 0 (the OS picks): the address cannot be known in advance.
    [true, 0, FALLBACK_PUBLIC_URL],
    // The controller serves no dashboard: the reference dashboard's development address.
    [false, 8080, FALLBACK_PUBLIC_URL],
  ])('dashboard enabled %p on API port %p: %s', (enabled, port, expected) => {
    expect(fallbackPublicUrl({ dashboard: { enabled }, api: { port } })).toBe(expected);
  });
});

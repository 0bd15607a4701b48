import { isAtLeast, parseGameVersion } from '../software/version';

/**
 * How Velocity tells backends who a player is. `modern` (signed, needs Paper 1.13+) is the
 * safe one; `legacy` (BungeeCord style, unsigned) is the only one servers before 1.13 speak.
 */
export type ForwardingMode = 'modern' | 'legacy';

/**
 * The mode for a network: one proxy setting serves every backend, so a single backend older
 * than 1.13 forces `legacy` on all. Versions that do not parse are not counted.
 */
export function forwardingModeFor(backendVersions: Iterable<string>): ForwardingMode {
  for (const text of backendVersions) {
    const version = parseGameVersion(text);
    if (version && !isAtLeast(version, '1.13')) return 'legacy';
  }
  return 'modern';
}

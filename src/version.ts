import pkg from '../package.json' with { type: 'json' };

// Set by `bun run build --release-version X` (build.ts `define`); absent in a source run.
declare const SVC_BUILD_VERSION: string | undefined;

/** The release version: package.json's, embedded in the binary at build time, unless the build named another. */
export const VERSION: string = typeof SVC_BUILD_VERSION === 'string' ? SVC_BUILD_VERSION : pkg.version;

/**
 * The JIT policy the compiled binary starts with (build.ts `compile.jitPolicy`): JavaScriptCore's
 * tier-up thresholds scaled by this much, so code that runs once at start (config, migrations,
 * ~2,000 route schemas built, ~200 routes listed) stays in the interpreter instead of being
 * compiled by the baseline and optimising JITs. Measured with every module: the first answer
 * comes ~35 ms sooner and the idle process holds ~2.5 MiB less (the optimising compiler never
 * runs at start, so neither its code pages nor its memory are touched).
 */
export const STARTUP_JIT_POLICY = 1000;

/**
 * The start is over: the normal JIT policy from now on, so request handling and the control
 * loops are compiled as usual. Called by every long-running command once it serves.
 */
export function startupOver(): void {
  Bun.unsafe.setJITPolicy(1);
}

/**
 * The JIT policy the compiled binary starts with (build.ts `compile.jitPolicy`): JavaScriptCore's
 * tier-up thresholds scaled by this much, so code that runs once at start (config, migrations,
 * ~2,000 route schemas built, ~200 routes mounted on Elysia) stays in the interpreter instead of
 * being compiled by the baseline and optimising JITs. Measured with every module: the first
 * answer comes ~35 ms sooner and the idle process holds ~2.5 MiB less (the optimising compiler
 * never runs at start, so neither its code pages nor its memory are touched).
 */
export const STARTUP_JIT_POLICY = 1000;

/**
 * The policy once the controller serves: thresholds ×10 rather than JavaScriptCore's own (×1).
 * Execution counts gathered at start stay with each function, so at ×1 the first requests
 * compiled everything that had run often at start and runs again for a request (Elysia composing
 * a route, TypeBox building its checker): ~2 MiB of baseline code an idle controller never uses
 * again. At ×10 those stay interpreted; request handling, which runs thousands of times, is
 * still compiled within its first seconds of load (bun run bench http measures throughput after
 * a warm-up: the same at ×1 and ×10).
 */
export const SERVING_JIT_POLICY = 10;

/**
 * The start is over: the serving JIT policy from now on, so request handling and the control
 * loops are compiled as usual. Called by every long-running command once it serves.
 */
export function startupOver(): void {
  Bun.unsafe.setJITPolicy(SERVING_JIT_POLICY);
}

// Runs before every test file: tests see a clean environment, never the operator's. The one
// variable kept is the test harness's own: SVC_TEST_BINARY, the binary CI already built
// (test/support/binary.ts), so the suite does not compile a second one.
for (const key of Object.keys(process.env)) {
  if (key.startsWith('SVC_') && key !== 'SVC_TEST_BINARY') delete process.env[key];
}
process.env.TZ = 'UTC';

// Runs before every test file: tests see a clean environment, never the operator's.
for (const key of Object.keys(process.env)) {
  if (key.startsWith('SVC_')) delete process.env[key];
}
process.env.TZ = 'UTC';

/** The child's environment: the controller's own with `extra` laid over it (Bun.spawn's env replaces, so merge here). */
export function launchEnv(extra: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

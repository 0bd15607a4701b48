/**
 * Variables of the controller's own environment that configure or unlock the controller itself
 * (the cluster token, database credentials, update hand-over markers). They never reach a
 * service, not even when a caller passes them on by mistake.
 */
const CONTROLLER_ONLY = /^SVC_(CLUSTER_TOKEN|DB_[A-Z_]*|UPDATE_[A-Z_]*|ROLLBACK_[A-Z_]*)$/;

/**
 * The child's environment: exactly what the caller gave (preparers build it from the
 * controller's environment without SVC_*, then add the service's own SVC_API_TOKEN and
 * friends), less the controller-only variables. Bun.spawn's env replaces the process's, so
 * nothing else leaks in. Without `given`, PATH alone, so a program name is still found.
 */
export function launchEnv(given: Record<string, string> | undefined): Record<string, string> {
  const env: Record<string, string> = {};
  if (given === undefined) {
    if (process.env.PATH !== undefined) env.PATH = process.env.PATH;
    return env;
  }
  for (const [key, value] of Object.entries(given)) if (!CONTROLLER_ONLY.test(key)) env[key] = value;
  return env;
}

/** A config problem the operator must fix; for svc.toml the process exits with status 2 and this one line. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

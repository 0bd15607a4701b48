import { join, resolve } from 'node:path';
import type { Config } from './schema';

/** The controller's folders (absolute). */
export interface Paths {
  data: string;
  config: string;
  logs: string;
  templates: string;
  services: string;
  dedicated: string;
}

/** The controller's folders for a working directory and its config (nothing is created here). */
export function pathsOf(dir: string, config: Config): Paths {
  return {
    data: join(dir, 'data'),
    config: join(dir, 'config'),
    logs: resolve(dir, config.paths.logs),
    templates: resolve(dir, config.paths.templates),
    services: resolve(dir, config.paths.services),
    dedicated: resolve(dir, config.paths.dedicated),
  };
}

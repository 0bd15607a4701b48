import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { loadConfig } from '../config/load';
import { pathsOf } from '../config/paths';
import { readControllerRuntime } from '../core/update/runtime-file';
import { readSavedToken } from '../http/master-token';

/** Where `svc cli --dir` connects: the controller of that working directory, with its master token. */
export interface DirTarget {
  url: string;
  /** Absent when the controller's token is nowhere this user can read; the caller says what to do. */
  token?: string;
  /** Why there is no token, for the operator. */
  tokenProblem?: string;
}

/**
 * Reads a controller's working directory as the controller would: its address from
 * data/controller.json (the real port, also with `port = 0`) or else `[api]` of svc.toml, and
 * its token from SVC_API_TOKEN's stand-ins, `[api] token`, or the generated data/api-token.
 * Nothing is written (a missing svc.toml is an error, not a fresh default file).
 */
export function dirTarget(dirArg: string, env: Record<string, string | undefined>, configArg?: string): DirTarget {
  const dir = resolve(dirArg);
  const configPath = configArg ? resolve(configArg) : join(dir, 'svc.toml');
  if (!existsSync(configPath)) throw new Error(`no ${configPath}: is ${dir} the controller's --dir? (svc init --dir ${dir} makes one)`);
  const { config } = loadConfig(configPath, env);
  const data = pathsOf(dir, config).data;
  const running = readControllerRuntime(data);
  const host = config.api.bind === '0.0.0.0' || config.api.bind === '::' ? '127.0.0.1' : config.api.bind;
  const url = running?.url ?? `http://${host.includes(':') ? `[${host}]` : host}:${config.api.port}`;
  if (config.api.token) return { url, token: config.api.token };
  const saved = readSavedToken(data);
  if (saved.kind === 'token') return { url, token: saved.token };
  if (saved.kind === 'absent') return { url, tokenProblem: `${join(data, 'api-token')} does not exist yet: the controller writes it on its first start` };
  return {
    url,
    tokenProblem: saved.unreadable
      ? `${join(data, 'api-token')} cannot be read by this user (it is the controller user's, mode 600): run svc cli as that user (sudo -u svc svc cli --dir ${dir}), or pass SVC_API_TOKEN`
      : saved.problem,
  };
}

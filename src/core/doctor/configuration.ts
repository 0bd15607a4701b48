import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../../config/schema';
import type { TokenSource } from '../../config/token-source';
import { fail, info, ok, warn, type Finding } from './model';

/** Settings that work but expose or weaken something, and cluster settings that cannot work. */
export function configurationFindings(config: Config, tokenSource: TokenSource, dir: string): Finding[] {
  const findings: Finding[] = [];
  if (tokenSource === 'generated') findings.push(info('the master token was generated and is kept in data/api-token', 'set [api] token or SVC_API_TOKEN to choose it yourself'));
  else findings.push(ok(`the master token comes from ${tokenSource === 'environment' ? 'SVC_API_TOKEN' : '[api] token'}`));
  if (config.api.bind === '0.0.0.0' && !config.api.jwt_enabled) {
    findings.push(warn('[api] bind = 0.0.0.0 without jwt_enabled: the API answers every network with long-lived tokens', 'bind to 127.0.0.1 behind a TLS proxy, or enable JWTs and hand out scoped, expiring tokens'));
  }
  if (config.api.allowed_origins.length === 0) findings.push(warn('[api] allowed_origins is empty: any browser origin may call the API', 'list your dashboard\'s origin'));
  if (config.cluster.enabled) {
    if (config.cluster.token === '') findings.push(fail('[cluster] enabled without a token: no agent can authenticate', 'set [cluster] token or SVC_CLUSTER_TOKEN'));
    const keystore = resolve(dir, config.cluster.keystore_path);
    if (config.cluster.tls_enabled && !existsSync(join(keystore, 'cluster.crt'))) {
      findings.push(fail(`[cluster] TLS is on but there is no certificate in ${keystore}`, 'start the controller once to create it, or check keystore_path'));
    }
    if (!config.cluster.tls_enabled) findings.push(warn('[cluster] tls_enabled = false: agent tokens cross the network unencrypted', 'keep TLS on unless the network is private'));
  }
  if (findings.every((f) => f.level === 'OK')) findings.push(ok('configuration looks sound'));
  return findings;
}

import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Config } from '../../config/schema';
import type { TokenSource } from '../../config/token-source';
import { createHash, timingSafeEqual } from 'node:crypto';
import { fail, info, ok, warn, type Finding } from './model';

/** Below these a cluster token can be guessed or brute-forced (it enrols nodes, which run what the controller sends). */
export const CLUSTER_TOKEN_MIN_LENGTH = 24;
export const CLUSTER_TOKEN_MIN_DISTINCT = 10;

/**
 * The cluster token: a node holding it may enrol and receive game servers to run, so it must be
 * hard to guess, and never the master token (every agent machine would hold the operator's key).
 */
export function clusterTokenFindings(clusterToken: string, masterToken: string): ReturnType<typeof configurationFindings> {
  const generate = 'generate one, e.g. `openssl rand -base64 32`, and set it in [cluster] token (or SVC_CLUSTER_TOKEN) and each new agent\'s agent.toml';
  if (masterToken !== '' && sameSecret(clusterToken, masterToken)) {
    return [fail('[cluster] token equals the master token: every agent machine holds the operator\'s key to the whole API', `choose a different cluster token: ${generate}`)];
  }
  const distinct = new Set(clusterToken).size;
  if (clusterToken.length < CLUSTER_TOKEN_MIN_LENGTH) return [warn(`[cluster] token is weak: ${clusterToken.length} characters (at least ${CLUSTER_TOKEN_MIN_LENGTH} wanted)`, generate)];
  if (distinct < CLUSTER_TOKEN_MIN_DISTINCT) return [warn(`[cluster] token is weak: only ${distinct} different characters`, generate)];
  return [];
}

/** Equal, compared by digest in constant time (core keeps out of the HTTP layer, where secretEquals lives). */
function sameSecret(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b));
}

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
    else findings.push(...clusterTokenFindings(config.cluster.token, config.api.token));
    const keystore = resolve(dir, config.cluster.keystore_path);
    if (config.cluster.tls_enabled && !existsSync(join(keystore, 'cluster.crt'))) {
      findings.push(fail(`[cluster] TLS is on but there is no certificate in ${keystore}`, 'start the controller once to create it, or check keystore_path'));
    }
    if (!config.cluster.tls_enabled) {
      findings.push(
        warn(
          '[cluster] tls_enabled = false: the cluster token, node secrets, templates, state and every command cross the network unencrypted, and only agents with allow_insecure = true in agent.toml accept it',
          'keep TLS on unless the network is private',
        ),
      );
    }
  }
  if (findings.every((f) => f.level === 'OK')) findings.push(ok('configuration looks sound'));
  return findings;
}

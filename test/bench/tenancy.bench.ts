/**
 * What a server's own credential costs per request, against the master token in the same run:
 * the request guard's two steps, `identify` (the token's SHA-256, the three constant-time
 * secret comparisons, then the credential store's map look-up and the service's liveness) and
 * `authorize` (the route's `tenants` reach, with the `own` check on the path parameter), in
 * process, on the real Authenticator and ServiceCredentials with 500 live services. Rounds
 * alternate which credential goes first; medians of the rounds' ns per request.
 * Goal: a server's credential ≤ 1.5 × the master token's cost.
 *
 *   bun run bench tenancy
 *   BENCH_ROUNDS=9 BENCH_TENANCY_ITERATIONS=200000
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Authenticator, type Access, type Identification } from '../../src/core/auth';
import { ServiceCredentials } from '../../src/core/tenancy/service-credentials';
import { envNumber, fixed, formatTable, median } from './lib';

const ROUNDS = envNumber('BENCH_ROUNDS', 9);
const ITERATIONS = envNumber('BENCH_TENANCY_ITERATIONS', 200_000);
const SERVICES = 500;
const MASTER = 'bench-master-token-0123456789abcdefghijklmnop';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-tenancy-'));
try {
  const live = new Set<string>();
  const credentials = new ServiceCredentials(join(dir, 'service-credentials.json'), (name) => live.has(name));
  const tokens: string[] = [];
  for (let i = 1; i <= SERVICES; i++) {
    live.add(`Lobby-${i}`);
    tokens.push(credentials.issue(`Lobby-${i}`, 'backend'));
  }
  const auth = new Authenticator({ masterToken: MASTER, clusterToken: 'bench-cluster-token-0123456789', jwtEnabled: false });
  auth.useTenants(credentials);
  // PUT /api/services/:name/players, as the SDK sends it every 10 s: own-service reach.
  const access: Access = { auth: 'service', reads: false, tenants: { backend: 'own', proxy: 'own' } };
  const tenantToken = tokens[250]!;
  const params = { name: 'Lobby-251' };

  const run = (token: string): number => {
    let passed = 0;
    const started = Bun.nanoseconds();
    for (let i = 0; i < ITERATIONS; i++) {
      const who = auth.identify(token) as Identification;
      if (auth.authorize(who, access, params).ok) passed++;
    }
    const elapsed = Bun.nanoseconds() - started;
    if (passed !== ITERATIONS) throw new Error(`only ${passed} of ${ITERATIONS} requests passed`);
    return elapsed / ITERATIONS;
  };

  // Warm-up: both paths compiled before anything is measured.
  run(MASTER);
  run(tenantToken);
  const master: number[] = [];
  const tenant: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      master.push(run(MASTER));
      tenant.push(run(tenantToken));
    } else {
      tenant.push(run(tenantToken));
      master.push(run(MASTER));
    }
  }
  const m = median(master);
  const s = median(tenant);
  console.log(`\nidentify + authorize per request, ${ROUNDS} rounds of ${ITERATIONS} (ns, medians; ${SERVICES} live services)\n`);
  console.log(
    formatTable(
      ['credential', 'ns per request', 'vs master token'],
      [
        ['master token', fixed(m, 0), '1.00'],
        ['a server’s own credential (own-service route)', fixed(s, 0), fixed(s / m, 2)],
      ],
    ),
  );
  console.log(`\ngoal: a server's credential ≤ 1.5 × the master token: ${s / m <= 1.5 ? 'MET' : 'NOT MET'} (${fixed(s / m, 2)})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

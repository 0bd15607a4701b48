/**
 * HTTP load generator of http.bench.ts, run as its own process so it never shares an event
 * loop with a server: `concurrency` loops, each awaiting one keep-alive fetch at a time, for
 * `warmup` seconds (not counted) then `duration` seconds (counted).
 *
 *   bun test/bench/loadgen.ts --url URL [--header 'Name: value']... [--concurrency 32]
 *                             [--warmup 3] [--duration 5]
 *
 * Prints `{"event":"measure-start"}` and `{"event":"measure-end"}` when the counted window
 * opens and closes (the parent samples server CPU there), then one JSON LoadResult line.
 */
import { parseArgs } from 'node:util';

export interface LoadResult {
  event: 'result';
  requests: number;
  /** Responses other than 200 inside the counted window. */
  non200: number;
  /** Fetch failures (connection errors) inside the counted window. */
  errors: number;
  firstNon200?: string;
  firstError?: string;
  seconds: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU the generator used in the counted window, as a fraction of one core. */
  cpuCores: number;
  responseBytes: number;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: Bun.argv.slice(2),
    options: {
      url: { type: 'string' },
      header: { type: 'string', multiple: true },
      concurrency: { type: 'string', default: '32' },
      warmup: { type: 'string', default: '3' },
      duration: { type: 'string', default: '5' },
    },
  });
  if (!values.url) throw new Error('--url is required');
  const url = values.url;
  const concurrency = Number(values.concurrency);
  const warmupMs = Number(values.warmup) * 1000;
  const durationMs = Number(values.duration) * 1000;
  const headers: Record<string, string> = {};
  for (const header of values.header ?? []) {
    const colon = header.indexOf(':');
    if (colon <= 0) throw new Error(`--header ${header}: expected "Name: value"`);
    headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
  }

  let phase: 'warmup' | 'measure' | 'done' = 'warmup';
  let requests = 0;
  let non200 = 0;
  let errors = 0;
  let responseBytes = 0;
  let firstNon200: string | undefined;
  let firstError: string | undefined;
  const latencies: number[] = [];

  const loop = async (): Promise<void> => {
    while (phase !== 'done') {
      const started = performance.now();
      try {
        const response = await fetch(url, { headers });
        const body = await response.arrayBuffer();
        if (phase !== 'measure') continue;
        if (response.status === 200) {
          requests += 1;
          latencies.push(performance.now() - started);
          responseBytes = body.byteLength;
        } else {
          non200 += 1;
          firstNon200 ??= `${response.status}: ${new TextDecoder().decode(body).slice(0, 200)}`;
        }
      } catch (error) {
        if (phase === 'measure') {
          errors += 1;
          firstError ??= String(error);
        }
        await Bun.sleep(1); // a refused connection must not spin
      }
    }
  };

  const loops = Array.from({ length: concurrency }, loop);
  await Bun.sleep(warmupMs);
  phase = 'measure';
  const cpuStart = process.cpuUsage();
  const t0 = performance.now();
  console.log(JSON.stringify({ event: 'measure-start' }));
  await Bun.sleep(durationMs);
  phase = 'done';
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  console.log(JSON.stringify({ event: 'measure-end' }));
  // In-flight requests finish (and are not counted); a stuck server must not hold us forever.
  await Promise.race([Promise.all(loops), Bun.sleep(5000)]);

  latencies.sort((a, b) => a - b);
  const at = (p: number): number => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
  const result: LoadResult = {
    event: 'result',
    requests,
    non200,
    errors,
    firstNon200,
    firstError,
    seconds,
    rps: requests / seconds,
    p50Ms: at(50),
    p99Ms: at(99),
    cpuCores: (cpu.user + cpu.system) / 1e6 / seconds,
    responseBytes,
  };
  console.log(JSON.stringify(result));
}

if (import.meta.main) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exit(1);
    },
  );
}

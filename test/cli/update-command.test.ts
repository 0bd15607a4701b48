/** `svc update` handing the job to a running controller (a local HTTP fake of its API). */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runUpdate } from '../../src/cli/update-command';
import { tempDir } from '../support/controller';

const TOKEN = 'update-command-test-token-0123456789abcdef';
let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const f of cleanup.reverse()) f();
  cleanup = [];
});

interface Job {
  state: string;
  currentVersion: string;
  targetVersion: string | null;
}

/** A controller that restarts into `newVersion` faster than the CLI polls: its next answer already comes from the new process. */
function fastRestartingController(oldVersion: string, newVersion: string, firstState: string) {
  const seen: string[] = [];
  let restarted = false;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const { pathname } = new URL(request.url);
      seen.push(`${request.method} ${pathname}`);
      if (request.headers.get('authorization') !== `Bearer ${TOKEN}` && pathname !== '/api/health') return Response.json({ success: false, error: 'UNAUTHORIZED', message: 'no' }, { status: 401 });
      if (pathname === '/api/controller/update' && request.method === 'POST') {
        restarted = true; // exec'd right after this answer
        return Response.json({ state: firstState, currentVersion: oldVersion, targetVersion: null } satisfies Job, { status: 202 });
      }
      if (pathname === '/api/controller/update') return Response.json({ state: 'idle', currentVersion: restarted ? newVersion : oldVersion, targetVersion: null } satisfies Job);
      if (pathname === '/api/health') return Response.json({ status: 'ok', version: restarted ? newVersion : oldVersion });
      return new Response('not found', { status: 404 });
    },
  });
  cleanup.push(() => server.stop(true));
  return { url: `http://127.0.0.1:${server.port}`, seen };
}

function controllerDir(url: string, version: string): string {
  const dir = tempDir('svc-update-command-');
  cleanup.push(dir.remove);
  writeFileSync(join(dir.dir, 'svc.toml'), `[api]\ntoken = "${TOKEN}"\n`);
  mkdirSync(join(dir.dir, 'data'));
  // This test's own pid: a live process, as the running controller's would be.
  writeFileSync(join(dir.dir, 'data', 'controller.json'), JSON.stringify({ pid: process.pid, url, version }));
  return dir.dir;
}

describe('svc update through a running controller', () => {
  test('a controller back in its new version before the next poll (answering "idle") counts as restarted, judged by the versions of the job as taken', async () => {
    const fake = fastRestartingController('0.13.1', '0.13.0', 'installing');
    const out: string[] = [];
    const err: string[] = [];
    const code = await runUpdate(['--rollback', '--yes', '--dir', controllerDir(fake.url, '0.13.1')], { out: (t) => void out.push(t), err: (t) => void err.push(t), confirm: null });
    expect(err.join('')).toBe('');
    expect(code).toBe(0);
    expect(out.join('')).toContain('svc 0.13.1 → 0.13.0; every service kept running');
    expect(fake.seen).toContain('GET /api/controller/update');
    expect(fake.seen).toContain('GET /api/health');
  }, 20_000);
});

/**
 * The isolated launcher with real processes, in this process (root on CI): uid and uid+bwrap
 * modes, what the sandbox does to signals, exits, leftovers and re-attach, how a service's
 * folder is given to its uid, and a controller adopting a service an earlier version launched
 * with its state in `<workDir>/.svc`. The unprivileged bwrap mode runs in test/e2e/isolation.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { chmodSync, existsSync, linkSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startIsolation, type IsolatedLauncher } from '../../../src/core/isolation';
import { processesOf } from '../../../src/core/isolation/owner';
import { launch, type ProcessHandle } from '../../../src/core/supervisor/process';
import { pidAlive } from '../../../src/core/supervisor/process/pid-probe';
import { parentOf } from '../../../src/core/supervisor/process/sandbox-pid';
import { readJson, startController, waitFor } from '../../support/controller';

const IS_ROOT = process.getuid?.() === 0 && process.platform === 'linux';
const HAS_BWRAP = existsSync('/usr/bin/bwrap');

const dirs: string[] = [];
const handles: ProcessHandle[] = [];
const uids = new Set<number>();
afterEach(() => {
  for (const handle of handles.splice(0)) {
    handle.signal('SIGKILL');
    handle.close();
  }
  // Only ever service uids: a pkill -U of anything else would take the test run with it.
  for (const uid of uids) if (uid >= 1_900_000_000) Bun.spawnSync(['pkill', '-9', '-U', String(uid)]);
  uids.clear();
});
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A controller-like folder under /var/tmp (the sandbox's /tmp is its own), searchable by others. */
async function site(setting: 'uid' | 'auto') {
  const dir = mkdtempSync('/var/tmp/svc-launcher-');
  dirs.push(dir);
  chmodSync(dir, 0o711);
  mkdirSync(join(dir, 'data'));
  writeFileSync(join(dir, 'svc.toml'), '');
  const started = await startIsolation({
    setting,
    uidBase: 1_900_000_000,
    dir,
    configFile: join(dir, 'svc.toml'),
    dataDir: join(dir, 'data'),
    ownerOnly: [],
    serviceRoots: [{ root: join(dir, 'services'), sub: ['static', 'temp'] }],
  });
  const workDir = join(dir, 'services', 'static', 'Lobby-1');
  mkdirSync(workDir, { recursive: true });
  return { dir, workDir, ...started };
}

async function start(launcher: IsolatedLauncher, workDir: string, script: string): Promise<{ handle: ProcessHandle; lines: string[] }> {
  await launcher.vacate('Lobby-1');
  const handle = await launcher.launch({ name: 'Lobby-1', workDir, argv: ['/bin/sh', '-c', script], env: { PATH: '/usr/bin:/bin' } });
  handles.push(handle);
  const lines: string[] = [];
  handle.onLine((line) => lines.push(line));
  return { handle, lines };
}

const uidOf = (pid: number) => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

describe.skipIf(!IS_ROOT || !HAS_BWRAP)('uid+bwrap (auto as root)', () => {
  test('the pid is the server itself inside the sandbox, under its uid; a SIGTERM it does not handle still ends it; what it left dies with it', async () => {
    const { launcher, workDir, isolation } = await site('auto');
    expect(isolation).toMatchObject({ uid: true, bwrap: true });
    const { handle, lines } = await start(launcher, workDir, 'echo "inside $$"; sleep 300 & read l; echo "got $l"; wait');
    await waitFor(() => lines.includes('inside 2'), { what: 'the server to start as pid 2 of its namespace' });
    const uid = uidOf(handle.pid);
    uids.add(uid);
    expect(uid).toBeGreaterThanOrEqual(1_900_000_000);
    // The server's parent is the sandbox's init, whose parent is bwrap, whose parent is the wrapper.
    const init = parentOf(handle.pid)!;
    expect(parentOf(parentOf(init)!)).toBe(handle.wrapperPid);
    expect(statSync(workDir).uid).toBe(uid);
    handle.write('hello');
    await waitFor(() => lines.includes('got hello'), { what: 'stdin to reach the server' });
    handle.signal('SIGTERM');
    expect(await handle.exited).toEqual({ code: 143 });
    await waitFor(() => processesOf(uid).length === 0, { what: 'the sleep it forked to die with the namespace' });
  });

  test('exit codes pass through the sandbox; a re-attached sandboxed server is signalled the same', async () => {
    const { launcher, workDir } = await site('auto');
    const first = await start(launcher, workDir, 'echo up; exit 7');
    expect(await first.handle.exited).toEqual({ code: 7 });
    const { handle, lines } = await start(launcher, workDir, 'echo up; while read -r l; do echo "echo $l"; done');
    uids.add(uidOf(handle.pid));
    await waitFor(() => lines.includes('up'), { what: 'up' });
    handle.close();
    const again = await launcher.reattach(handle.stateDir);
    if (again.kind !== 'attached') throw new Error(`not attached: ${JSON.stringify(again)}`);
    handles.push(again.handle);
    expect(again.handle.pid).toBe(handle.pid);
    const after: string[] = [];
    again.handle.onLine((line) => after.push(line));
    again.handle.write('back');
    await waitFor(() => after.includes('echo back'), { what: 'the echo after re-attach' });
    again.handle.signal('SIGKILL');
    expect(await again.handle.exited).toEqual({ code: 137 });
  });

  test('the state dir is under data/run, owner-only; the work dir holds none of it', async () => {
    const { launcher, workDir, dir } = await site('auto');
    const { handle, lines } = await start(launcher, workDir, 'echo up; read l');
    uids.add(uidOf(handle.pid));
    await waitFor(() => lines.includes('up'), { what: 'up' });
    expect(handle.stateDir).toBe(join(dir, 'data', 'run', 'Lobby-1'));
    expect(statSync(handle.stateDir).mode & 0o777).toBe(0o700);
    expect(existsSync(join(handle.stateDir, 'process.json'))).toBe(true);
    expect(existsSync(join(workDir, '.svc', 'process.json'))).toBe(false);
  });
});

describe.skipIf(!IS_ROOT)('uid (its own uid only)', () => {
  test('the folder is given to the uid without following links or touching shared files; nothing of its uid outlives it, and leftovers are killed before the next start', async () => {
    const { launcher, workDir, dir, isolation } = await site('uid');
    expect(isolation).toMatchObject({ uid: true, bwrap: false });
    const outside = join(dir, 'outside.txt');
    writeFileSync(outside, 'not yours');
    symlinkSync(outside, join(workDir, 'link'));
    mkdirSync(join(dir, 'shared'));
    writeFileSync(join(dir, 'shared', 'server.jar'), 'jar');
    linkSync(join(dir, 'shared', 'server.jar'), join(workDir, 'server.jar'));
    mkdirSync(join(workDir, 'world'));
    writeFileSync(join(workDir, 'world', 'level.dat'), 'x');
    // A previous version's state dir in the work dir: its files go, .svc/tmp becomes TMPDIR.
    mkdirSync(join(workDir, '.svc'));
    writeFileSync(join(workDir, '.svc', 'process.json'), '{}');

    // A child in its group, and one that leaves the group (setsid): neither outlives the server.
    const { handle, lines } = await start(launcher, workDir, 'echo "home=$HOME tmp=$TMPDIR"; (sleep 300 &); setsid sleep 301 & echo forked');
    const uid = (await waitFor(() => JSON.parse(readFileSync(join(dir, 'data', 'isolation-uids.json'), 'utf8')).services['Lobby-1'] as number | undefined, { what: 'the uid' }))!;
    uids.add(uid);
    expect(await handle.exited).toEqual({ code: 0 });
    expect(lines).toEqual([`home=${workDir} tmp=${join(workDir, '.svc', 'tmp')}`, 'forked']);
    for (const path of ['.', 'world', 'world/level.dat', '.svc', '.svc/tmp']) expect(lstatSync(join(workDir, path)).uid).toBe(uid);
    expect(lstatSync(join(workDir, 'link')).uid).toBe(uid); // the link itself
    expect(statSync(outside).uid).toBe(0); // never its target
    expect(statSync(join(workDir, 'server.jar')).uid).toBe(0); // two links: the template's copy stays the controller's
    expect(statSync(workDir).mode & 0o777).toBe(0o700);
    expect(existsSync(join(workDir, '.svc', 'process.json'))).toBe(false);
    // exited settled once every process of its uid had ended.
    expect(processesOf(uid)).toEqual([]);
    // Something of its uid that runs all the same (started behind the supervisor's back) goes
    // before the next start of the name writes into its folder.
    const stray = Bun.spawn(['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '/bin/sleep', '302'], { stdio: ['ignore', 'ignore', 'ignore'] });
    await waitFor(() => processesOf(uid).length > 0, { what: 'the stray process' });
    await launcher.vacate('Lobby-1');
    expect(processesOf(uid)).toEqual([]);
    await stray.exited;
  });

  test('vacate refuses while the service itself still runs, and kills nothing then', async () => {
    const { launcher, workDir } = await site('uid');
    const { handle, lines } = await start(launcher, workDir, 'echo up; read l');
    uids.add(uidOf(handle.pid));
    await waitFor(() => lines.includes('up'), { what: 'up' });
    await expect(launcher.vacate('Lobby-1')).rejects.toThrow('Lobby-1 still runs');
    expect(pidAlive(handle.pid)).toBe(true);
  });
});

describe('a sandbox that cannot be set up', () => {
  test.skipIf(!HAS_BWRAP)('before its child exists: the launch fails with bwrap\'s own words', async () => {
    const workDir = mkdtempSync('/var/tmp/svc-launcher-');
    dirs.push(workDir);
    const spec = { name: 'Broken', workDir, argv: ['/usr/bin/bwrap', '--no-such-option', '--', '/bin/true'], sandboxed: true };
    await expect(launch(spec)).rejects.toThrow(/^Broken: the sandbox did not start: bwrap: Unknown option --no-such-option/);
  });

  test.skipIf(!HAS_BWRAP)('inside its child: a crash with exit code 1 and bwrap\'s words on the console', async () => {
    const workDir = mkdtempSync('/var/tmp/svc-launcher-');
    dirs.push(workDir);
    const spec = { name: 'Broken', workDir, argv: ['/usr/bin/bwrap', '--unshare-all', '--info-fd', '4', '--bind', '/no/such/source', '/x', '--', '/bin/true'], sandboxed: true };
    const handle = await launch(spec);
    handles.push(handle);
    expect(await handle.exited).toEqual({ code: 1 });
    expect(handle.lastLines(5).join('\n')).toContain("bwrap: Can't find source path /no/such/source");
  });
});

describe.skipIf(!IS_ROOT || !HAS_BWRAP)('a service an earlier version launched', () => {
  test('is adopted from its <workDir>/.svc state dir, and its next launch moves to data/run', async () => {
    const c = await startController({ toml: '[services]\nisolation = "auto"\n' });
    try {
      chmodSync(c.dir, 0o711);
      const group = { name: 'Legacy', type: 'STATIC', software: 'CUSTOM', version: '1.21.1', startCommand: ['/bin/sh', '-c', 'echo legacy ready; while read -r l; do echo "echo $l"; [ "$l" = stop ] && exit 0; done'], readyPattern: 'legacy ready', minInstances: 0, maxInstances: 1, drainTimeout: 0, restartOnCrash: false };
      expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);
      await c.stopKeepingDir();
      // What the previous version did: the process under the plain supervisor, state in the work dir, as root.
      const workDir = join(c.dir, 'services', 'static', 'Legacy-1');
      mkdirSync(workDir, { recursive: true });
      const old = await launch({ name: 'Legacy-1', workDir, argv: group.startCommand });
      handles.push(old);
      expect(old.stateDir).toBe(join(workDir, '.svc'));
      const entry = { name: 'Legacy-1', group: 'Legacy', state: 'READY', port: 30999, workDir, stateDir: old.stateDir, isStatic: true, restartCount: 0, customState: '' };
      writeFileSync(join(c.dir, 'data', 'state', 'services.json'), `${JSON.stringify({ version: 1, services: [entry] })}\n`);
      old.close();

      const next = await startController({ dir: c.dir });
      try {
        expect(await readJson(await next.api('/api/services/Legacy-1'))).toMatchObject({ state: 'READY', pid: old.pid });
        expect((await next.api('/api/services/Legacy-1/exec', { method: 'POST', json: { command: 'still there' } })).status).toBe(200);
        await waitFor(async () => (await readJson(await next.api('/api/services/Legacy-1/logs?source=stdout'))).lines.includes('echo still there'), { what: 'the echo through the legacy state dir' });
        expect((await next.api('/api/services/Legacy-1/stop', { method: 'POST' })).status).toBe(200);
        expect(pidAlive(old.pid)).toBe(false);
        // Started again by this version: isolated, its state under data/run, nothing left in .svc.
        expect((await next.api('/api/services/Legacy/start', { method: 'POST' })).status).toBe(201);
        await waitFor(async () => (await readJson(await next.api('/api/services/Legacy-1'))).state === 'READY', { what: 'Legacy-1 READY again' });
        const fresh = await readJson(await next.api('/api/services/Legacy-1'));
        uids.add(uidOf(fresh.pid));
        expect(uidOf(fresh.pid)).toBeGreaterThanOrEqual(1_900_000_000);
        expect(existsSync(join(next.dir, 'data', 'run', 'Legacy-1', 'process.json'))).toBe(true);
        expect(existsSync(join(workDir, '.svc', 'process.json'))).toBe(false);
        expect((await next.api('/api/services/Legacy-1/stop', { method: 'POST' })).status).toBe(200);
      } finally {
        await next.stop();
      }
    } finally {
      rmSync(c.dir, { recursive: true, force: true });
    }
  }, 30_000);
});

/**
 * The controller driving servers it did not write: a real flying-squid server (a JS Minecraft
 * server) as a CUSTOM group, and a real JVM started through the built PAPER command
 * (`java -Xmx.. [Aikar flags] -Dsvc.* -jar server.jar --nogui`). The Java fixture is compiled
 * and packaged while the test runs, into a temp dir; no binary is committed.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { zipSync, type Zippable } from 'fflate';
import { pingServer } from '../../src/core/net/server-list-ping';
import { pidAlive } from '../../src/core/supervisor/process/pid-probe';
import { expectErrorBody, readJson, startController, tempDir, waitFor, type TestController } from '../support/controller';

const FLYING_SQUID = join(import.meta.dir, '../fixtures/flying-squid-server.ts');
const FAKE_SERVER_JAVA = join(import.meta.dir, '../fixtures/java/FakeServer.java');
const JAVA = Bun.which('java');
const JAVAC = Bun.which('javac');
const noJava = JAVA === null || JAVAC === null;

let c: TestController;
const events: { type: string; data: Record<string, string> }[] = [];
/** Every pid a test saw (servers and their sh wrappers): none may outlive the controller. */
const seenPids = new Set<number>();
const temps: (() => void)[] = [];

beforeAll(async () => {
  c = await startController({
    timing: {
      // Generous: a graceful stop must finish on its own; a kill shows up as "killing it" in the log.
      stopTimeoutMs: 10_000,
      readyTimeoutMs: 30_000,
      drainPollMs: 20,
      restart: { baseDelayMs: 10, maxDelayMs: 50, loopThreshold: 10, loopWindowMs: 60_000, stableAfterMs: 600_000 },
    },
  });
  c.controller.kernel.bus.subscribe((e) => events.push({ type: e.type, data: e.data }));
});

afterAll(async () => {
  await c.stop();
  for (const remove of temps) remove();
  await waitFor(() => [...seenPids].every((pid) => !pidAlive(pid)), { timeoutMs: 5000, what: `no process left of ${[...seenPids].join(', ')}` });
}, 30_000);


const ofType = (type: string, service: string) => events.filter((e) => e.type === type && e.data.service === service);
const state = async (name: string): Promise<string> => (await readJson(await c.api(`/api/services/${name}`))).state;
const logLines = async (name: string, source: 'app' | 'stdout'): Promise<string[]> => {
  const body = await readJson(await c.api(`/api/services/${name}/logs?source=${source}&lines=1000`));
  expect(body.source).toBe(source);
  return body.lines;
};

/** The process handle of a running service, with its pids remembered for the final check. */
function handleOf(name: string) {
  const handle = c.controller.kernel.manager.handleOf(name);
  if (!handle) throw new Error(`${name} has no process handle`);
  seenPids.add(handle.pid);
  seenPids.add(handle.wrapperPid);
  return handle;
}

/**
 * Stops a service through the API and returns the server's exit code: the `stop` written to
 * its stdin must end it (no kill), after which the service is gone and so is its process.
 */
async function stopThroughApi(name: string): Promise<{ code: number | null; workDir: string }> {
  const handle = handleOf(name);
  const workDir = c.controller.kernel.services.get(name)!.workDir;
  const exited = handle.exited; // settles before the stop's clean-up closes the handle
  const res = await c.api(`/api/services/${name}/stop`, { method: 'POST' });
  expect(res.status).toBe(200);
  const exit = await exited;
  expect(c.logs.join('')).not.toContain('killing it');
  expect(ofType('SERVICE_STOPPING', name)).toHaveLength(1);
  expect(ofType('SERVICE_STOPPED', name)).toHaveLength(1);
  const gone = await c.api(`/api/services/${name}`);
  expect(gone.status).toBe(404);
  expect((await expectErrorBody(gone)).error).toBe('SERVICE_NOT_FOUND');
  expect(pidAlive(handle.pid)).toBe(false);
  await waitFor(() => !pidAlive(handle.wrapperPid), { timeoutMs: 5000, what: `${name}'s wrapper to end` });
  return { code: exit.code, workDir };
}

/** Compiles test/fixtures/java/FakeServer.java and packages it as a runnable jar (Main-Class manifest). */
async function buildFakeServerJar(javac: string): Promise<Uint8Array> {
  const { dir, remove } = tempDir('svc-java-');
  temps.push(remove);
  const classes = join(dir, 'classes');
  const proc = Bun.spawn([javac, '-encoding', 'UTF-8', '-d', classes, FAKE_SERVER_JAVA], { stdout: 'pipe', stderr: 'pipe' });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`javac failed with ${code}:\n${out}${err}`);
  const entries: Zippable = {
    'META-INF/MANIFEST.MF': new TextEncoder().encode('Manifest-Version: 1.0\r\nMain-Class: FakeServer\r\nCreated-By: svc tests\r\n\r\n'),
  };
  for (const file of readdirSync(classes, { recursive: true, encoding: 'utf8' })) {
    if (file.endsWith('.class')) entries[relative(classes, join(classes, file)).split('\\').join('/')] = readFileSync(join(classes, file));
  }
  expect(Object.keys(entries)).toContain('FakeServer.class');
  return zipSync(entries);
}

describe('real servers under the controller', () => {
  test('flying-squid as a CUSTOM group: READY on its own line, real status on the leased port, `stop` on stdin ends it', async () => {
    const group = {
      name: 'Squid',
      software: 'CUSTOM',
      version: '1.21.4',
      jarName: 'server.jar',
      startCommand: [process.execPath, FLYING_SQUID, '--port', '{port}', '--max-players', '13', '--motd', 'svc {name}', '--version', '1.21.4'],
      readyPattern: 'Server listening on port',
      minInstances: 0,
      maxInstances: 1,
      memory: '512M',
    };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);

    const started = await c.api('/api/services/Squid/start', { method: 'POST' });
    expect(started.status).toBe(201);
    const { service } = await readJson(started);
    expect(service).toMatchObject({ name: 'Squid-1', groupName: 'Squid', state: 'STARTING' });
    const port: number = service.port;
    expect(port).toBeGreaterThan(0);
    handleOf('Squid-1');

    await waitFor(async () => (await state('Squid-1')) === 'READY', { timeoutMs: 30_000, what: 'Squid-1 READY' });
    expect(ofType('SERVICE_READY', 'Squid-1')).toHaveLength(1);
    // READY came from flying-squid's own line, and that line names the leased port.
    const listening = (await logLines('Squid-1', 'stdout')).map((line) => /Server listening on port (\d+), version 1\.21\.4/.exec(line)).find((m) => m !== null);
    expect(listening?.[1]).toBe(String(port));
    const view = await readJson(await c.api('/api/services/Squid-1'));
    expect(view).toMatchObject({ state: 'READY', port });
    expect(view.pid).toBeGreaterThan(0);

    const status = await pingServer('127.0.0.1', port, { timeoutMs: 3000 });
    expect(status).toMatchObject({ version: { name: '1.21.4', protocol: 769 }, players: { online: 0, max: 13 }, description: { text: 'svc Squid-1' } });

    const { code, workDir } = await stopThroughApi('Squid-1');
    expect(code).toBe(0);
    expect(existsSync(workDir)).toBe(false);
    await expect(pingServer('127.0.0.1', port, { timeoutMs: 500 })).rejects.toThrow();
  }, 60_000);

  test.skipIf(noJava)('a real `java -jar` through the built PAPER command: flags, files, exec, both logs, stop', async () => {
    const jar = await buildFakeServerJar(JAVAC!);
    const template = join(c.dir, 'templates', 'Jvm');
    mkdirSync(template, { recursive: true });
    writeFileSync(join(template, 'server.jar'), jar);
    writeFileSync(join(template, 'server.properties'), 'motd=from the template\nserver-port=1\n');

    const group = { name: 'Jvm', software: 'PAPER', version: '1.20.4', memory: '256M', javaPath: JAVA!, jvmOptimize: true, minInstances: 0, maxInstances: 1 };
    expect((await c.api('/api/groups', { method: 'POST', json: group })).status).toBe(201);

    const started = await c.api('/api/services/Jvm/start', { method: 'POST' });
    expect(started.status).toBe(201);
    const { service } = await readJson(started);
    expect(service).toMatchObject({ name: 'Jvm-1', groupName: 'Jvm', state: 'STARTING' });
    const port: number = service.port;
    handleOf('Jvm-1');
    const workDir = c.controller.kernel.services.get('Jvm-1')!.workDir;

    await waitFor(async () => (await state('Jvm-1')) === 'READY', { timeoutMs: 30_000, what: 'Jvm-1 READY' });
    expect(ofType('SERVICE_READY', 'Jvm-1')).toHaveLength(1);

    // What the JVM itself saw: the command svc built for PAPER 1.20.4.
    const stdout = await logLines('Jvm-1', 'stdout');
    const tagged = (tag: string) => stdout.filter((l) => l.startsWith(`${tag} `)).map((l) => l.slice(tag.length + 1));
    expect(tagged('FAKE-ARG')).toEqual(['--nogui']);
    const jvm = tagged('FAKE-JVM');
    expect(jvm[0]).toBe('-Xmx256M');
    // Aikar's flags (jvmOptimize, no jvmArgs) sit between -Xmx and the -Dsvc.* properties.
    expect(jvm.indexOf('-XX:+UseG1GC')).toBeLessThan(jvm.indexOf('-Dsvc.service.name=Jvm-1'));
    for (const flag of ['-Xms256M', '-XX:+UseG1GC', '-XX:MaxGCPauseMillis=200', '-XX:+AlwaysPreTouch', '-Dusing.aikars.flags=https://mcflags.emc.gs']) expect(jvm).toContain(flag);
    expect(jvm).toContain('-Dsvc.service.name=Jvm-1');
    expect(jvm).toContain(`-Dsvc.service.port=${port}`);
    expect(tagged('FAKE-PROP')).toEqual(['svc.service.name=Jvm-1', 'svc.service.group=Jvm', `svc.service.port=${port}`, `svc.api.url=${c.url}`]);
    expect(tagged('FAKE-CMD')).toEqual(['server.jar --nogui']); // `-jar server.jar --nogui`
    expect(tagged('FAKE-EXE')).toEqual([realpathSync(JAVA!)]);
    expect(tagged('FAKE-CWD')).toEqual([realpathSync(workDir)]);
    const files = tagged('FAKE-FILE');
    expect(files).toContain('eula.txt eula=true');
    expect(files).toContain(`server.properties server-port=${port}`);
    expect(files).toContain('server.properties online-mode=false');
    expect(files).toContain('server.properties motd=from the template');
    expect(files).not.toContain('server.properties server-port=1');
    expect(stdout.at(-1)).toBe('[12:00:00 INFO]: Done (0.5s)! For help, type "help"');
    // The template itself is untouched.
    expect(readFileSync(join(template, 'server.properties'), 'utf8')).toContain('server-port=1');

    expect((await c.api('/api/services/Jvm-1/exec', { method: 'POST', json: { command: 'say hi' } })).status).toBe(200);
    await waitFor(async () => (await logLines('Jvm-1', 'stdout')).includes('[12:00:00 INFO]: [Server] hi'), { timeoutMs: 10_000, what: 'the say line on stdout' });
    const app = await logLines('Jvm-1', 'app');
    expect(app).toContain('[12:00:00 INFO]: Done (0.5s)! For help, type "help"');
    expect(app).toContain('[12:00:00 INFO]: [Server] hi');
    expect(app).toEqual(readFileSync(join(workDir, 'logs', 'latest.log'), 'utf8').split('\n').filter((l) => l !== ''));

    const { code } = await stopThroughApi('Jvm-1');
    expect(code).toBe(0);
    expect(existsSync(workDir)).toBe(false);
  }, 60_000);
});

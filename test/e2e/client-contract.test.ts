/**
 * The contract with svc's real clients, checked from the clients' side through the compiled
 * binary: every core route the existing dashboard calls, with the dashboard's own request
 * bodies, and every field path it reads with the JSON type it expects
 * (../shared/CLIENT-CONTRACT.md §1–9); then the core calls of the proxy bridge (master token)
 * and the backend SDK (derived service token) with the fields they parse
 * (../shared/REFERENCE-MODULES.md §10). Expectations follow the clients, not svc's answer.
 *
 * One controller serves both runs of CLIENT-CONTRACT.md: groups Lobby (LOBBY, CUSTOM, one
 * READY instance), Echo (DYNAMIC, CUSTOM), BedWars (created by the dashboard's body), Arena
 * (every svc extension field set, never started), a dedicated Survival (CUSTOM, started),
 * `[cluster]` on with one `svc agent`, `[loadbalancer]` on, and fake PaperMC/Fabric upstreams
 * (every other upstream is a closed port), and the master token svc generates on a default
 * install (which the doctor reports). Game servers are test/fixtures/fake-paper.ts.
 * Each test collects every mismatch it meets and reports them together, route and field path
 * in each line.
 */
import { afterAll, beforeAll, describe, test } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { deriveServiceToken } from '../../src/core/auth';
import { LineCollector, svcBinary } from '../support/binary';
import { tempDir, waitFor } from '../support/controller';
import { fakeFabric } from '../fixtures/upstream/fabric';
import { fakePaperMc } from '../fixtures/upstream/papermc';
import { fakeJar } from '../fixtures/upstream/serve';
import { DEDICATED, detailPageBody, editDialogBody, GROUP, MAINTENANCE, prefixed, SERVICE, STATUS, STRESS, SYSTEM_INFO } from './contract/dashboard-shapes';
import { type Shape } from './contract/expect-shape';
import { arr, Checks, Client, eventually, field, obj, Socket, type Answer } from './contract/harness';

const CLUSTER = 'contract-cluster-token-0123456789abcdef';
const FAKE_PAPER = join(import.meta.dir, '../fixtures/fake-paper.ts');
const OFFLINE = 'http://127.0.0.1:1';
const UPTIME = /^\d+h \d+m \d+s$/;
const NOTCH = { name: 'Notch', uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };

const scratch = tempDir('svc-contract-');
/** In every fake server's argv, so leftovers of a killed run can be found and ended. */
const MARKER = basename(scratch.dir);
const paperCommand = () => [process.execPath, FAKE_PAPER, '--port', '{port}', '--motd', MARKER, '--max-lifetime-ms', '120000'];

const papermc = fakePaperMc({ paper: { versions: { '1.21': ['1.21.4', '1.21.4-rc1', '1.21.3'] } } });
const fabric = fakeFabric({
  games: [{ version: '1.21.4', stable: true }],
  loaders: [
    { version: '0.16.14', stable: true },
    { version: '0.16.15-beta', stable: false },
  ],
  installers: [{ version: '1.0.3', stable: true }],
  jar: fakeJar('fabric'),
});

// Groups as an operator writes them; the dashboard later edits Lobby and Arena with its own bodies.
const LOBBY = { name: 'Lobby', type: 'LOBBY', software: 'CUSTOM', version: '1.21.1', memory: '512M', minInstances: 1, maxInstances: 2, startCommand: paperCommand(), readyPattern: 'Done \\(', jvmArgs: ['-Xss1M'], drainTimeout: 3, placementNode: 'local' };
const ECHO = { name: 'Echo', type: 'DYNAMIC', software: 'CUSTOM', version: '1.21.1', memory: '256M', minInstances: 0, maxInstances: 3, startCommand: paperCommand(), drainTimeout: 0, placementNode: 'local' };
const ARENA = {
  name: 'Arena',
  type: 'STATIC',
  software: 'CUSTOM',
  version: '1.21.1',
  memory: '512M',
  minInstances: 0,
  maxInstances: 2,
  startCommand: paperCommand(),
  jarName: 'arena.jar',
  readyPattern: 'Done \\(',
  templates: ['arena-base', 'Arena'],
  warmPoolSize: 2,
  drainTimeout: 7,
  deployOnStop: true,
  deployExcludes: ['logs', 'world'],
  jvmArgs: ['-Xss2M'],
  placementNode: 'local',
  placementFallback: 'local',
};

interface Proc {
  child: Bun.Subprocess<'ignore', 'pipe', 'pipe'>;
  out: LineCollector;
  err: LineCollector;
}

let svc: string;
let url = '';
/** The master token svc generated on its first start (data/api-token), as on a default install. */
let token = '';
let controller: Proc | undefined;
let agent: Proc | undefined;
let survivalPort = 0;
let events: Socket | undefined;
/** The dashboard: master token, `Content-Type: application/json` on every call (lib/api.ts apiFetch). */
let dashboard: Client;
/** The Velocity bridge: master token (proxies hold it). */
let bridge: Client;
/** The backend SDK: the derived service token (backends hold it). */
let sdk: Client;
/** Setup calls (ours, not a client's). */
let admin: Client;

function freePort(): number {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

function spawn(args: string[]): Proc {
  const child = Bun.spawn([svc, ...args], { env: { PATH: process.env.PATH ?? '', SVC_LOG_FORMAT: 'json' }, stdout: 'pipe', stderr: 'pipe', stdin: 'ignore' });
  return { child, out: new LineCollector(child.stdout), err: new LineCollector(child.stderr) };
}

/** Fake servers left by a controller that did not stop them (found by MARKER in their argv). */
function killLeftovers(): void {
  const listing = Bun.spawnSync(['ps', '-eo', 'pid=,args=']).stdout.toString();
  for (const line of listing.split('\n')) {
    if (!line.includes(MARKER) || !line.includes('fake-paper')) continue;
    try {
      process.kill(Number(line.trim().split(/\s+/)[0]), 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}


async function serviceState(name: string): Promise<string | undefined> {
  return field((await admin.get(`/api/services/${name}`)).json, 'state') as string | undefined;
}

async function waitReady(name: string, timeoutMs = 20_000): Promise<void> {
  await waitFor(async () => (await serviceState(name)) === 'READY', { what: `${name} READY`, timeoutMs });
}

async function mustCreate(path: string, body: unknown): Promise<Answer> {
  const answer = await admin.post(path, body);
  if (answer.status !== 201 && answer.status !== 200) throw new Error(`setup: POST ${path}: ${answer.status} ${answer.text}`);
  return answer;
}

beforeAll(async () => {
  svc = await svcBinary();
}, 120_000);

beforeAll(async () => {
  const dir = join(scratch.dir, 'controller');
  mkdirSync(dir);
  survivalPort = freePort();
  // Backends lease the lowest free port of their range; Survival's fixed port stays out of it.
  let backendStart = 32_000 + Math.floor(Math.random() * 20_000);
  if (survivalPort >= backendStart && survivalPort < backendStart + 10_000) backendStart = survivalPort + 1;
  const software = Object.entries({
    papermc_url: papermc.url,
    fabric_url: fabric.url,
    purpur_url: OFFLINE,
    pufferfish_url: OFFLINE,
    leaf_url: OFFLINE,
    forge_url: OFFLINE,
    forge_promotions_url: OFFLINE,
    neoforge_url: OFFLINE,
    mojang_url: OFFLINE,
    modrinth_url: OFFLINE,
    hangar_url: OFFLINE,
    curseforge_url: OFFLINE,
  }).map(([key, value]) => `${key} = "${value}"`);
  writeFileSync(
    join(dir, 'svc.toml'),
    [
      // Fixture servers run from the test tree with the bun under $HOME: no service uid or sandbox reaches them.
      '[services]',
      'isolation = "none"',
      '[network]',
      'bind = "127.0.0.1"',
      '[controller]',
      'max_memory = "16G"',
      'scaling_tick_interval = 1',
      'heartbeat_interval = 1000',
      `backend_port_start = ${backendStart}`,
      // A sample every second: the history routes have one to show soon after the start.
      '[metrics]',
      'sample_interval = 1',
      '[api]',
      'port = 0',
      'rate_limit = 0',
      'service_rate_limit = 0',
      '[cluster]',
      'enabled = true',
      `token = "${CLUSTER}"`,
      `agent_port = ${freePort()}`,
      'bind = "127.0.0.1"',
      'public_host = "127.0.0.1"',
      'heartbeat_interval = 500',
      '[loadbalancer]',
      'enabled = true',
      'bind = "127.0.0.1"',
      `port = ${freePort()}`,
      'health_check_interval = 1',
      '[software]',
      ...software,
      '',
    ].join('\n'),
  );
  controller = spawn(['--dir', dir]);
  const started = controller;
  const listening = await started.out.waitForLine((l) => l.includes('API listening'), 20_000).catch((error: Error) => {
    throw new Error(`${error.message}\nstderr:\n${started.err.text}`);
  });
  url = `http://127.0.0.1:${(JSON.parse(listening) as { port: number }).port}`;
  token = readFileSync(join(dir, 'data', 'api-token'), 'utf8').trim();
  dashboard = new Client(url, token, true);
  bridge = new Client(url, token, true);
  sdk = new Client(url, deriveServiceToken(token), true);
  admin = new Client(url, token, true);
  events = await Socket.open(`${url.replace('http', 'ws')}/api/events?token=${token}`);

  const agentDir = join(scratch.dir, 'node-1');
  mkdirSync(agentDir);
  writeFileSync(
    join(agentDir, 'agent.toml'),
    `[agent]\ncontroller = "${url}"\ntoken = "${CLUSTER}"\nnode_name = "node-1"\nmax_memory = "8G"\npublic_host = "127.0.0.1"\nbackend_port_start = ${backendStart + 5000}\nmax_services = 10\n[services]\nisolation = "none"\n`,
  );
  agent = spawn(['agent', '--dir', agentDir]);

  await mustCreate('/api/groups', LOBBY);
  await mustCreate('/api/groups', ECHO);
  await mustCreate('/api/groups', ARENA);
  await mustCreate('/api/dedicated', { name: 'Survival', port: survivalPort, software: 'CUSTOM', version: '1.21.1', memory: '512M', startCommand: paperCommand(), jvmArgs: ['-Xss1M'] });
  const survival = await admin.post('/api/dedicated/Survival/start');
  if (survival.status !== 200 && survival.status !== 201) throw new Error(`setup: start Survival: ${survival.status} ${survival.text}`);
  await mustCreate('/api/services/Echo/start', undefined);
  await Promise.all(['Lobby-1', 'Echo-1', 'Survival'].map((name) => waitReady(name)));
}, 60_000);

afterAll(async () => {
  events?.close();
  if (controller) {
    controller.child.kill('SIGTERM');
    // A graceful stop stops every service; past 15 s it is killed and leftovers are ended below.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const exited = await Promise.race([controller.child.exited.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), 15_000)))]);
    clearTimeout(timer);
    if (!exited) controller.child.kill('SIGKILL');
  }
  agent?.child.kill('SIGKILL');
  await agent?.child.exited;
  killLeftovers();
  papermc.close();
  fabric.close();
  scratch.remove();
}, 30_000);

describe('the dashboard', () => {
  test('overview and settings: status, controller info, changelog, player history, performance, config, modules, reload', async () => {
    const c = new Checks();
    const status = await dashboard.get('/api/status');
    c.status('GET /api/status', status, 200);
    c.shape('GET /api/status', status.json, STATUS);
    // The login form's reachability test, from the dashboard's origin: 401 (below 500) that the browser may read.
    const origin = { origin: 'http://localhost:3000' };
    for (const [label, credential] of [['no token', null], ['a wrong token', 'not-the-token']] as const) {
      const login = await dashboard.get('/api/status', { token: credential, headers: origin });
      c.status(`GET /api/status with ${label} (login form)`, login, 401);
      c.equal(`GET /api/status with ${label} (login form): access-control-allow-origin`, login.headers.get('access-control-allow-origin'), origin.origin);
    }

    const info = await dashboard.get('/api/controller/info');
    c.status('GET /api/controller/info', info, 200);
    c.shape('GET /api/controller/info', info.json, {
      version: 'string',
      startedAt: 'string',
      uptimeSeconds: 'number',
      jvmMemoryUsedMb: 'number',
      jvmMemoryMaxMb: 'number',
      servicesMaxMemoryMb: 'number',
      servicesAllocatedMemoryMb: 'number',
      servicesUsedMemoryMb: 'number',
      runningServices: 'number',
      updateAvailable: 'boolean',
      latestVersion: 'string|null',
      updateType: 'string|null',
      releaseUrl: 'string|null',
      ...SYSTEM_INFO,
    });
    c.that('GET /api/controller/info', !Number.isNaN(Date.parse(String(field(info.json, 'startedAt')))), `startedAt is not an ISO date: ${JSON.stringify(field(info.json, 'startedAt'))}`);

    const changelog = await dashboard.get('/api/controller/changelog');
    c.status('GET /api/controller/changelog', changelog, 200);
    c.shape('GET /api/controller/changelog', changelog.json, { 'entries[].version': 'string', 'entries[].title': 'string', 'entries[].body': 'string' });
    // The dashboard turns a title's trailing "(date)" into "Released …": every released section of
    // CHANGELOG.md (embedded in the binary) ends its title with its date; an unreleased one has none.
    const entries = arr(field(changelog.json, 'entries'));
    for (const [, version, when] of readFileSync(join(import.meta.dir, '../../CHANGELOG.md'), 'utf8').matchAll(/^## v?(\S+) \(([^)]+)\)/gm)) {
      const title = String(field(entries.find((e) => field(e, 'version') === version), 'title'));
      if (/unreleased/i.test(when!)) c.that(`GET /api/controller/changelog: ${version} (unreleased) title`, !/\)\s*$/.test(title), `expected no trailing "(…)", got ${JSON.stringify(title)}`);
      else c.that(`GET /api/controller/changelog: ${version} title`, title.endsWith(`(${when})`), `expected to end with "(${when})", got ${JSON.stringify(title)}`);
    }

    const history = await dashboard.get('/api/metrics/players/history?minutes=60');
    c.status('GET /api/metrics/players/history?minutes=60', history, 200);
    c.shape('GET /api/metrics/players/history?minutes=60', history.json, { samples: 'array', 'samples[]?.timestamp': 'string', 'samples[]?.totalPlayers': 'number', 'samples[]?.byGroup': 'object', 'samples[]?.byGroup{}?': 'number' });

    const performance = await dashboard.get('/api/metrics/performance');
    c.status('GET /api/metrics/performance', performance, 200);
    c.shape('GET /api/metrics/performance', performance.json, {
      crashesLast24h: 'number',
      crashesLast7d: 'number',
      averageStartupSeconds: 'number',
      uptimePercent: 'number',
      totalMemoryUsedMb: 'number',
      totalMemoryMaxMb: 'number',
      networkPlayers: 'number',
      serviceCount: 'number',
      readyServiceCount: 'number',
      'groups[].groupName': 'string',
      'groups[].crashesLast24h': 'number',
      'groups[].averageStartupSeconds': 'number',
      'groups[].averageMemoryPercent': 'number',
      'groups[].averageTps': 'number',
      'groups[].playerCount': 'number',
      'groups[].maxPlayers': 'number',
      'groups[].serviceCount': 'number',
      'groups[].readyServiceCount': 'number',
    });

    const config = await dashboard.get('/api/config');
    c.status('GET /api/config', config, 200);
    c.shape('GET /api/config', config.json, { networkName: 'string', consoleColored: 'boolean', consoleLogEvents: 'boolean' });
    const patched = await dashboard.patch('/api/config', { networkName: 'Contract Network', consoleColored: false, consoleLogEvents: true });
    c.status('PATCH /api/config', patched, 200);
    const after = (await dashboard.get('/api/config')).json;
    c.equal('PATCH /api/config then GET', [field(after, 'networkName'), field(after, 'consoleColored'), field(after, 'consoleLogEvents')], ['Contract Network', false, true]);

    const modules = await dashboard.get('/api/modules');
    c.status('GET /api/modules', modules, 200);
    c.shape('GET /api/modules', modules.json, {
      modules: 'array',
      'modules[]?.id': 'string',
      'modules[]?.name': 'string',
      'modules[]?.description': 'string',
      'modules[]?.version': 'string',
      'modules[]?.status': ['active', 'available'],
      'modules[]?.loaded': 'boolean',
      'modules[]?.dashboard': 'object|null|absent',
    });

    c.status('POST /api/reload (empty body)', await dashboard.post('/api/reload'), 200);
    c.done();
  }, 20_000);

  test('services: list, detail, logs, metrics history, start a group, restart, stop', async () => {
    const c = new Checks();
    const list = await dashboard.get('/api/services');
    c.status('GET /api/services', list, 200);
    c.shape('GET /api/services', list.json, { total: 'number', ...prefixed('services[].', SERVICE), 'services[].sync.lastPushAt': 'string|null|absent', 'services[].sync.canonicalSizeBytes': 'number|absent', 'services[].sync.lastPushFiles': 'number|absent' });
    const running = arr(field(list.json, 'services')).filter((s) => field(s, 'state') === 'READY');
    for (const service of running) c.shape(`GET /api/services (READY ${String(field(service, 'name'))})`, service, { uptime: UPTIME });

    const detail = await dashboard.get('/api/services/Lobby-1');
    c.status('GET /api/services/Lobby-1', detail, 200);
    c.shape('GET /api/services/Lobby-1', detail.json, { ...SERVICE, uptime: UPTIME, customState: 'null' });

    const logs = await dashboard.get('/api/services/Lobby-1/logs?lines=200');
    c.status('GET /api/services/Lobby-1/logs?lines=200', logs, 200);
    c.shape('GET /api/services/Lobby-1/logs?lines=200', logs.json, { 'lines[]': 'string' });

    const history = await dashboard.get('/api/services/Lobby-1/metrics/history?minutes=60');
    c.status('GET /api/services/Lobby-1/metrics/history?minutes=60', history, 200);
    c.shape('GET /api/services/Lobby-1/metrics/history?minutes=60', history.json, {
      samples: 'array',
      'samples[]?.timestamp': 'string',
      'samples[]?.memoryUsedMb': 'number',
      'samples[]?.memoryMaxMb': 'number',
      'samples[]?.playerCount': 'number',
    });

    // The start dialog starts an instance of a group; rows stop and restart services. Empty JSON POSTs.
    const started = await dashboard.post('/api/services/Echo/start');
    if (c.status('POST /api/services/Echo/start', started, 201)) {
      c.shape('POST /api/services/Echo/start', started.json, { message: 'string' });
      const name = String(field(started.json, 'service', 'name'));
      await c.step(`${name} READY`, () => waitReady(name));
      const restarted = await dashboard.post(`/api/services/${name}/restart`);
      c.status(`POST /api/services/${name}/restart`, restarted, 200);
      c.shape(`POST /api/services/${name}/restart`, restarted.json, { message: 'string' });
      const current = (field(restarted.json, 'service', 'name') as string | undefined) ?? name;
      c.status(`POST /api/services/${current}/stop`, await dashboard.post(`/api/services/${current}/stop`), 200);
    }
    c.done();
  }, 30_000);

  test('groups: list, detail, software and versions, create, both PUT bodies keep what they do not carry, delete', async () => {
    const c = new Checks();
    const list = await dashboard.get('/api/groups');
    c.status('GET /api/groups', list, 200);
    c.shape('GET /api/groups', list.json, { total: 'number', ...prefixed('groups[].', GROUP) });
    const lobby = await dashboard.get('/api/groups/Lobby');
    c.status('GET /api/groups/Lobby', lobby, 200);
    c.shape('GET /api/groups/Lobby', lobby.json, GROUP);

    const software = await dashboard.get('/api/software');
    c.status('GET /api/software', software, 200);
    c.shape('GET /api/software', software.json, { 'software[].name': 'string', 'software[].needsModloaderVersion': 'boolean', 'software[].needsCustomJar': 'boolean', 'software[].isProxy': 'boolean' });
    const versions = await dashboard.get('/api/software/PAPER/versions');
    c.status('GET /api/software/PAPER/versions', versions, 200);
    c.shape('GET /api/software/PAPER/versions', versions.json, { software: 'string', 'stable[]': 'string', 'snapshots[]?': 'string', latest: 'string|null' });
    c.equal('GET /api/software/PAPER/versions (fake upstream)', field(versions.json, 'stable'), ['1.21.4', '1.21.3']);
    const loaders = await dashboard.get('/api/software/FABRIC/modloader-versions?mcVersion=1.21.4');
    c.status('GET /api/software/FABRIC/modloader-versions?mcVersion=1.21.4', loaders, 200);
    c.shape('GET /api/software/FABRIC/modloader-versions?mcVersion=1.21.4', loaders.json, { 'stable[]': 'string', latest: 'string|null' });

    // groups/page.tsx's create body, exactly.
    const created = await dashboard.post('/api/groups', { name: 'BedWars', type: 'DYNAMIC', template: 'bedwars', software: 'PAPER', version: '1.21.4', modloaderVersion: '', memory: '1G', minInstances: 0, maxInstances: 4 });
    c.status('POST /api/groups (dashboard create body)', created, 201);
    const bedwars = await dashboard.get('/api/groups/BedWars');
    c.shape('GET /api/groups/BedWars', bedwars.json, GROUP);

    // Detail page Save on Lobby (CUSTOM, launched by startCommand): a flat partial body.
    const lobbyBody = { ...detailPageBody(lobby.json, 'Lobby'), maxPlayers: 60 };
    const savedLobby = await dashboard.put('/api/groups/Lobby', lobbyBody);
    c.status('PUT /api/groups/Lobby (detail page body)', savedLobby, 200);
    const lobbyAfter = (await dashboard.get('/api/groups/Lobby')).json;
    c.equal('PUT /api/groups/Lobby (detail page body) then GET: resources.maxPlayers (sent)', field(lobbyAfter, 'resources', 'maxPlayers'), 60);
    for (const key of ['startCommand', 'readyPattern', 'jvmArgs', 'drainTimeout', 'placementNode', 'type', 'minInstances', 'memory'] as const) {
      c.equal(`PUT /api/groups/Lobby (detail page body) then GET: ${key} (kept)`, field(lobbyAfter, key), LOBBY[key]);
    }

    // Edit dialog Save on Arena (every svc extension field set): the same plus jvmArgs and docker.
    const arena = (await dashboard.get('/api/groups/Arena')).json;
    const arenaBody = { ...editDialogBody(arena, 'Arena'), memory: '768M' };
    const savedArena = await dashboard.put('/api/groups/Arena', arenaBody);
    c.status('PUT /api/groups/Arena (edit dialog body)', savedArena, 200);
    const arenaAfter = (await dashboard.get('/api/groups/Arena')).json;
    c.equal('PUT /api/groups/Arena (edit dialog body) then GET: resources.memory (sent)', field(arenaAfter, 'resources', 'memory'), '768M');
    for (const key of ['startCommand', 'jarName', 'readyPattern', 'templates', 'warmPoolSize', 'drainTimeout', 'deployOnStop', 'deployExcludes', 'jvmArgs', 'placementNode', 'placementFallback', 'type'] as const) {
      c.equal(`PUT /api/groups/Arena (edit dialog body) then GET: ${key} (kept)`, field(arenaAfter, key), ARENA[key]);
    }

    const busy = await dashboard.delete('/api/groups/Lobby');
    c.status('DELETE /api/groups/Lobby (instances running)', busy, 409);
    c.equal('DELETE /api/groups/Lobby (instances running): error', field(busy.json, 'error'), 'GROUP_HAS_RUNNING_INSTANCES');
    c.status('DELETE /api/groups/BedWars', await dashboard.delete('/api/groups/BedWars'), 200);
    c.done();
  }, 20_000);

  test('dedicated: list (running and stopped), create, PUT keeps startCommand, restart, stop, delete', async () => {
    const c = new Checks();
    const list = await dashboard.get('/api/dedicated');
    c.status('GET /api/dedicated', list, 200);
    c.shape('GET /api/dedicated', list.json, { total: 'number', ...prefixed('services[].', DEDICATED) });
    const running = arr(field(list.json, 'services')).find((s) => field(s, 'name') === 'Survival');
    c.shape('GET /api/dedicated (Survival, running)', running, { state: 'string', pid: 'number', playerCount: 'number', uptime: UPTIME });

    // dedicated/page.tsx's create body (PAPER, never started): a stopped service.
    const created = await dashboard.post('/api/dedicated', { name: 'Creative', port: freePort(), software: 'PAPER', version: '1.21.4', memory: '1G', proxyEnabled: true, restartOnCrash: true, maxRestarts: 5, jvmArgs: [], jvmOptimize: true });
    c.status('POST /api/dedicated (dashboard create body)', created, 201);
    const stopped = arr(field((await dashboard.get('/api/dedicated')).json, 'services')).find((s) => field(s, 'name') === 'Creative');
    c.shape('GET /api/dedicated (Creative, never started)', stopped, { ...DEDICATED, state: 'null', playerCount: 'null', uptime: 'null', pid: 'null' });
    c.status('DELETE /api/dedicated/Creative', await dashboard.delete('/api/dedicated/Creative'), 200);

    // dedicated/page.tsx's edit body on a CUSTOM service run by startCommand: jarName/readyPattern/javaPath "" and no startCommand.
    const s = obj(running);
    const edit = { name: 'Survival', port: s.port, software: s.software, version: s.version, jarName: '', readyPattern: '', javaPath: '', proxyEnabled: s.proxyEnabled, memory: '768M', restartOnCrash: s.restartOnCrash, maxRestarts: s.maxRestarts, jvmArgs: s.jvmArgs, jvmOptimize: s.jvmOptimize };
    const saved = await dashboard.put('/api/dedicated/Survival', edit);
    c.status('PUT /api/dedicated/Survival (dashboard edit body)', saved, 200);
    c.shape('PUT /api/dedicated/Survival (dashboard edit body)', saved.json, { message: 'string' });
    const after = (await dashboard.get('/api/dedicated/Survival')).json;
    c.equal('PUT /api/dedicated/Survival then GET: memory (sent)', field(after, 'memory'), '768M');
    c.equal('PUT /api/dedicated/Survival then GET: startCommand (kept)', field(after, 'startCommand'), paperCommand());
    c.equal('PUT /api/dedicated/Survival then GET: jvmArgs (kept)', field(after, 'jvmArgs'), ['-Xss1M']);

    c.status('POST /api/dedicated/Survival/restart', await dashboard.post('/api/dedicated/Survival/restart'), 200);
    await c.step('Survival READY after the restart', () => waitReady('Survival'));
    c.status('POST /api/dedicated/Survival/stop', await dashboard.post('/api/dedicated/Survival/stop'), 200);
    const down = arr(field((await dashboard.get('/api/dedicated')).json, 'services')).find((x) => field(x, 'name') === 'Survival');
    c.shape('GET /api/dedicated (Survival, stopped)', down, { state: 'null', playerCount: 'null', uptime: 'null', pid: 'null' });
    c.status('POST /api/dedicated/Survival/start', await dashboard.post('/api/dedicated/Survival/start'), 200);
    await c.step('Survival READY after the start', () => waitReady('Survival'));
    c.status('POST /api/dedicated/Survival/stop', await dashboard.post('/api/dedicated/Survival/stop'), 200);
    c.status('DELETE /api/dedicated/Survival', await dashboard.delete('/api/dedicated/Survival'), 200);
    c.done();
  }, 40_000);

  test('operations: doctor, audit, plugin search offline, stress over all groups and one', async () => {
    const c = new Checks();
    const doctor = await dashboard.get('/api/doctor');
    c.status('GET /api/doctor', doctor, 200);
    c.shape('GET /api/doctor', doctor.json, {
      'sections[].name': 'string',
      'sections[].findings[]?.level': ['OK', 'WARN', 'FAIL'],
      'sections[].findings[]?.message': 'string',
      'sections[].findings[]?.hint': 'string|null',
      warnCount: 'number',
      failCount: 'number',
    });

    const audit = await dashboard.get('/api/audit?limit=100');
    c.status('GET /api/audit?limit=100', audit, 200);
    c.shape('GET /api/audit?limit=100', audit.json, {
      'entries[].timestamp': 'string',
      'entries[].actor': 'string',
      'entries[].action': 'string',
      'entries[].target': 'string',
      'entries[].details': 'string|null',
      limit: 'number',
      offset: 'number',
    });

    const search = await dashboard.get('/api/plugins/search?q=worldedit');
    // Every repository offline: an error the dashboard toasts, not an empty list it would read as "no such plugin".
    c.status('GET /api/plugins/search?q=worldedit (upstreams offline)', search, 503);
    c.equal('GET /api/plugins/search?q=worldedit (upstreams offline): error', field(search.json, 'error'), 'SERVICE_UNAVAILABLE');

    // stress/page.tsx: nothing picked omits group; "All groups" sends a space.
    const stress = async (label: string, body: Record<string, unknown>, group: string | null) => {
      const started = await dashboard.post('/api/stress/start', body);
      if (!c.status(`POST /api/stress/start ${label}`, started, 200)) return;
      await c.step(`GET /api/stress ${label}: simulated players arrive`, async () => {
        await waitFor(async () => Number(field((await dashboard.get('/api/stress')).json, 'currentPlayers')) > 0, { what: 'simulated players', timeoutMs: 8000 });
      });
      const status = (await dashboard.get('/api/stress')).json;
      c.shape(`GET /api/stress ${label} (active)`, status, { ...STRESS, 'services{}': 'number' });
      c.equal(`GET /api/stress ${label}: group`, field(status, 'group'), group);
      c.status(`POST /api/stress/ramp ${label}`, await dashboard.post('/api/stress/ramp', { players: 4, durationSeconds: 1 }), 200);
      c.status(`POST /api/stress/stop ${label}`, await dashboard.post('/api/stress/stop'), 200);
    };
    await stress('{players, rampSeconds} (no group)', { players: 12, rampSeconds: 0 }, null);
    await stress('{players, group:" ", rampSeconds} (All groups)', { players: 12, group: ' ', rampSeconds: 0 }, null);
    await stress('{players, group:"Lobby", rampSeconds}', { players: 12, group: 'Lobby', rampSeconds: 0 }, 'Lobby');
    const idle = await dashboard.get('/api/stress');
    c.shape('GET /api/stress (idle)', idle.json, STRESS);
    c.done();
  }, 40_000);

  test('sync proxy: maintenance (whitelist keeps the typed case), motd, tablist, chat, broadcast', async () => {
    const c = new Checks();
    const maintenance = await dashboard.get('/api/maintenance');
    c.status('GET /api/maintenance', maintenance, 200);
    c.shape('GET /api/maintenance', maintenance.json, MAINTENANCE);
    const on = await dashboard.post('/api/maintenance/global', { enabled: true });
    c.status('POST /api/maintenance/global {enabled:true}', on, 200);
    c.shape('POST /api/maintenance/global {enabled:true}', on.json, { 'global.enabled': 'boolean', groups: 'object' });
    const texts = obj(field(maintenance.json, 'global'));
    c.status('PUT /api/maintenance/global', await dashboard.put('/api/maintenance/global', { motdLine1: 'Back soon', motdLine2: texts.motdLine2, protocolText: texts.protocolText, kickMessage: texts.kickMessage }), 200);
    c.status('POST /api/maintenance/whitelist {entry:"Notch"}', await dashboard.post('/api/maintenance/whitelist', { entry: 'Notch' }), 200);
    const listed = (await dashboard.get('/api/maintenance')).json;
    c.equal('POST /api/maintenance/whitelist then GET: global.whitelist (the typed case)', field(listed, 'global', 'whitelist'), ['Notch']);
    c.equal('PUT /api/maintenance/global then GET: global.motdLine1', field(listed, 'global', 'motdLine1'), 'Back soon');
    c.status('DELETE /api/maintenance/whitelist {entry:"Notch"}', await dashboard.delete('/api/maintenance/whitelist', { entry: 'Notch' }), 200);
    c.equal('DELETE /api/maintenance/whitelist then GET: global.whitelist', field((await dashboard.get('/api/maintenance')).json, 'global', 'whitelist'), []);
    c.status('POST /api/maintenance/global {enabled:false}', await dashboard.post('/api/maintenance/global', { enabled: false }), 200);

    const sections: [string, Shape, (v: unknown) => Record<string, unknown>][] = [
      ['motd', { line1: 'string', line2: 'string', maxPlayers: 'number', playerCountOffset: 'number' }, (v) => ({ line1: field(v, 'line1'), line2: field(v, 'line2'), maxPlayers: field(v, 'maxPlayers'), playerCountOffset: field(v, 'playerCountOffset') })],
      ['tablist', { header: 'string', footer: 'string', playerFormat: 'string', updateInterval: 'number' }, (v) => ({ header: field(v, 'header'), footer: field(v, 'footer'), playerFormat: field(v, 'playerFormat'), updateInterval: field(v, 'updateInterval') })],
      ['chat', { format: 'string', enabled: 'boolean' }, (v) => ({ format: field(v, 'format'), enabled: field(v, 'enabled') })],
    ];
    for (const [name, shape, bodyOf] of sections) {
      const got = await dashboard.get(`/api/proxy/${name}`);
      c.status(`GET /api/proxy/${name}`, got, 200);
      c.shape(`GET /api/proxy/${name}`, got.json, shape);
      const put = await dashboard.put(`/api/proxy/${name}`, bodyOf(got.json));
      c.status(`PUT /api/proxy/${name}`, put, 200);
      c.shape(`PUT /api/proxy/${name} (the page keeps the answer as its config)`, put.json, shape);
    }

    for (const body of [{ message: 'hello from the dashboard' }, { message: 'hello lobby', group: 'Lobby' }]) {
      const sent = await dashboard.post('/api/broadcast', body);
      c.status(`POST /api/broadcast ${JSON.stringify(body)}`, sent, 200);
      c.shape(`POST /api/broadcast ${JSON.stringify(body)}`, sent.json, { message: 'string', services: 'number' });
    }
    c.done();
  }, 20_000);

  test('players: kick and send answer 503 PROXY_NOT_AVAILABLE without a READY proxy, known player or not', async () => {
    const c = new Checks();
    for (const player of ['Notch', 'NobodyAtAll42']) {
      for (const [action, body] of [
        ['kick', { reason: 'You have been kicked from the network.' }],
        ['send', { targetService: 'Lobby-1' }],
      ] as const) {
        const answer = await dashboard.post(`/api/players/${player}/${action}`, body);
        c.status(`POST /api/players/${player}/${action}`, answer, 503);
        c.equal(`POST /api/players/${player}/${action}: error`, field(answer.json, 'error'), 'PROXY_NOT_AVAILABLE');
      }
    }
    c.done();
  }, 10_000);

  test('files: list, text file for the editor, binary download without ?raw, PUT, New Folder, upload, DELETE', async () => {
    const c = new Checks();
    const base = '/api/files/templates/Lobby';
    const put = await dashboard.put(`${base}/contract.txt`, { content: 'motd=hello\n' });
    c.status(`PUT ${base}/contract.txt {content}`, put, 200, 201);
    const listing = await dashboard.get('/api/files/templates');
    c.status('GET /api/files/templates', listing, 200);
    c.shape('GET /api/files/templates', listing.json, { scope: 'string', path: 'string', 'entries[].name': 'string', 'entries[].path': 'string', 'entries[].isDirectory': 'boolean', 'entries[].size': 'number', 'entries[].lastModified': 'string|absent', total: 'number' });
    const text = await dashboard.get(`${base}/contract.txt`);
    c.status(`GET ${base}/contract.txt`, text, 200);
    c.shape(`GET ${base}/contract.txt`, text.json, { content: 'string' });
    c.equal(`GET ${base}/contract.txt: content`, field(text.json, 'content'), 'motd=hello\n');

    // Upload (XHR multipart to the directory with a trailing slash), then Download: fetch with only the bearer header, saved as a blob.
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0xff, 0xfe, 0x80, 0x00, 0xc3, 0x28]);
    const form = new FormData();
    form.append('file', new Blob([png], { type: 'image/png' }), 'server-icon.png');
    c.status(`POST ${base}/ (multipart upload)`, await dashboard.call('POST', `${base}/`, { body: form }), 200, 201);
    const download = await dashboard.call('GET', `${base}/server-icon.png`, { jsonHeader: false });
    c.status(`GET ${base}/server-icon.png (download)`, download, 200);
    c.that(`GET ${base}/server-icon.png (download, no ?raw=1)`, Buffer.from(download.bytes).equals(Buffer.from(png)), `expected the file's ${png.length} raw bytes, got ${download.headers.get('content-type')} ${download.text.slice(0, 80)}`);

    // New Folder: POST …?mkdir through apiFetch (JSON content type, no body).
    const mkdir = await dashboard.call('POST', `${base}/contract-folder?mkdir`, { jsonHeader: true });
    c.status(`POST ${base}/contract-folder?mkdir (empty JSON body)`, mkdir, 200, 201);
    const folder = arr(field((await dashboard.get(base)).json, 'entries')).find((e) => field(e, 'name') === 'contract-folder');
    c.equal(`POST ${base}/contract-folder?mkdir then list: isDirectory`, field(folder, 'isDirectory'), true);

    for (const name of ['contract.txt', 'server-icon.png', 'contract-folder']) {
      const gone = await dashboard.delete(`${base}/${name}`);
      if (name === 'contract-folder' && !folder) continue;
      c.status(`DELETE ${base}/${name}`, gone, 200);
    }
    // The chunked-upload start the dashboard sends through an HTTPS proxy spells the name fileName.
    const init = await dashboard.call('POST', `/api/modpacks/upload/init?${new URLSearchParams({ fileName: 'pack.mrpack', totalChunks: '1' })}`, { jsonHeader: true });
    c.status('POST /api/modpacks/upload/init?fileName&totalChunks', init, 200, 201);
    c.shape('POST /api/modpacks/upload/init?fileName&totalChunks', init.json, { uploadId: 'string' });
    c.done();
  }, 20_000);

  test('websockets with ?token=: events, the controller console (hello, execute), a service console', async () => {
    const c = new Checks();
    const ws = url.replace('http', 'ws');
    const eventFrames = events!.messages;
    c.that('WS /api/events', eventFrames.length > 0, 'no event frame arrived since the start');
    c.shape('WS /api/events frames', eventFrames, { '[].type': 'string', '[].timestamp': 'string', '[].data': 'object' });

    await c.step('WS /api/console/stream', async () => {
      const stream = await Socket.open(`${ws}/api/console/stream?token=${token}`);
      stream.send(JSON.stringify({ type: 'hello', text: JSON.stringify({ username: 'dashboard', hostname: 'localhost', os: 'Linux x86_64 (Browser)' }) }));
      stream.send(JSON.stringify({ type: 'execute', id: '1', input: 'status' }));
      const outputs = () => stream.messages.filter((m) => field(m, 'type') === 'output');
      await waitFor(() => outputs().length > 0 || stream.messages.some((m) => field(m, 'type') === 'output_end'), { what: 'output of "status"', timeoutMs: 8000 });
      c.shape('WS /api/console/stream output frames', outputs(), { '[].line.type': 'string', '[].line.text': 'string' });
      // The same frames as a client written from controller-api.md reads them (flat kind, text).
      c.shape('WS /api/console/stream output frames (spec)', outputs(), { '[].kind': ['header', 'info', 'success', 'error', 'item', 'text'], '[].text': 'string' });
      stream.close();
    });

    await c.step('WS /api/services/Echo-1/console', async () => {
      const serviceConsole = await Socket.open(`${ws}/api/services/Echo-1/console?token=${token}`);
      serviceConsole.send('say hello-from-dashboard');
      await waitFor(() => serviceConsole.frames.some((f) => f.includes('[Server] hello-from-dashboard')), { what: 'the say line on the service console', timeoutMs: 8000 });
      c.that('WS /api/services/Echo-1/console', serviceConsole.frames.every((f) => !f.includes('\n')), `one line per text frame, got ${JSON.stringify(serviceConsole.frames.filter((f) => f.includes('\n')))}`);
      serviceConsole.close();
    });
    c.done();
  }, 25_000);
});

describe('the proxy bridge (master token)', () => {
  test('cloud commands: list, status, players, groups, info, broadcast, maintenance, proxy config, remote commands, stress', async () => {
    const c = new Checks();
    const services = await bridge.get('/api/services');
    c.status('GET /api/services', services, 200);
    c.shape('GET /api/services (/cloud list)', services.json, { count: 'number', 'services[].name': 'string', 'services[].state': 'string', 'services[].playerCount': 'number', 'services[].port': 'number', 'services[].customState': 'string|null' });

    c.shape('GET /api/status (/cloud status)', (await bridge.get('/api/status')).json, {
      networkName: 'string',
      online: 'boolean',
      totalServices: 'number',
      totalPlayers: 'number',
      uptimeSeconds: 'number',
      'groups[].name': 'string',
      'groups[].instances': 'number',
      'groups[].maxInstances': 'number',
      'groups[].players': 'number',
    });

    // The bridge feeds the roster; /cloud players reads it back.
    c.status('POST /api/proxy/events PLAYER_CONNECTED', await bridge.post('/api/proxy/events', { type: 'PLAYER_CONNECTED', player: NOTCH.name, uuid: NOTCH.uuid, service: 'Lobby-1' }), 200);
    const players = await bridge.get('/api/players');
    c.status('GET /api/players', players, 200);
    c.shape('GET /api/players (/cloud players)', players.json, { count: 'number', 'players[].name': 'string', 'players[].server': 'string' });
    c.status('POST /api/proxy/events PLAYER_DISCONNECTED', await bridge.post('/api/proxy/events', { type: 'PLAYER_DISCONNECTED', player: NOTCH.name, uuid: NOTCH.uuid, service: 'Lobby-1' }), 200);

    c.shape('GET /api/groups (/cloud groups, modded routing)', (await bridge.get('/api/groups')).json, { 'groups[].name': 'string', 'groups[].software': 'string', 'groups[].version': 'string', 'groups[].modIds': 'array|absent' });
    c.shape('GET /api/groups/Lobby (/cloud info)', (await bridge.get('/api/groups/Lobby')).json, {
      name: 'string',
      software: 'string',
      version: 'string',
      minInstances: 'number',
      maxInstances: 'number',
      static: 'boolean',
      'resources.memory': 'string',
      'resources.maxPlayers': 'number',
    });

    const broadcast = await bridge.post('/api/broadcast', { message: 'from the bridge', group: 'Lobby' });
    c.status('POST /api/broadcast', broadcast, 200);
    c.shape('POST /api/broadcast (/cloud broadcast)', broadcast.json, { services: 'number' });

    // /cloud maintenance on Lobby; the proxy sync then loads the state from /api/proxy/config.
    const group = await bridge.post('/api/maintenance/groups/Lobby', { enabled: true });
    c.status('POST /api/maintenance/groups/Lobby {enabled:true}', group, 200);
    c.status('POST /api/maintenance/whitelist {entry:"Notch"}', await bridge.post('/api/maintenance/whitelist', { entry: 'Notch' }), 200);
    c.shape('GET /api/maintenance (MaintenanceHandler.refreshFromApi)', (await bridge.get('/api/maintenance')).json, {
      'global.enabled': 'boolean',
      'global.motdLine1': 'string',
      'global.motdLine2': 'string',
      'global.protocolText': 'string',
      'global.kickMessage': 'string',
      'global.whitelist[]': 'string',
      'groups{}.enabled': 'boolean',
      'groups{}.kickMessage': 'string|absent',
    });
    const config = await bridge.get('/api/proxy/config');
    c.status('GET /api/proxy/config', config, 200);
    c.shape('GET /api/proxy/config (ProxySyncListener.fetchConfig)', config.json, {
      'tablist.header': 'string',
      'tablist.footer': 'string',
      'tablist.playerFormat': 'string',
      'tablist.updateInterval': 'number',
      'motd.line1': 'string',
      'motd.line2': 'string',
      'motd.maxPlayers': 'number',
      'motd.playerCountOffset': 'number',
      'chat.format': 'string',
      'chat.enabled': 'boolean',
      version: 'string|null|absent',
      'maintenance.globalEnabled': 'boolean',
      'maintenance.motdLine1': 'string|absent',
      'maintenance.whitelist[]': 'string',
      // MaintenanceHandler.loadFromProxyConfig reads each group's value as a string (its kick message).
      'maintenance.groups{}': 'string',
    });
    c.shape('GET /api/proxy/tablist/players', (await bridge.get('/api/proxy/tablist/players')).json, { overrides: 'object', 'overrides{}?': 'string' });
    c.status('POST /api/maintenance/groups/Lobby {enabled:false}', await bridge.post('/api/maintenance/groups/Lobby', { enabled: false }), 200);
    c.status('DELETE /api/maintenance/whitelist {entry:"Notch"}', await bridge.delete('/api/maintenance/whitelist', { entry: 'Notch' }), 200);

    // Remote commands: discovered from /api/commands, run with the player as caller.
    const commands = await bridge.get('/api/commands');
    c.status('GET /api/commands', commands, 200);
    c.shape('GET /api/commands (refreshRemoteCommands)', commands.json, { 'commands[].name': 'string', 'commands[].description': 'string', 'commands[].permission': 'string', 'commands[].subcommands': 'array|absent' });
    const subcommands = arr(field(commands.json, 'commands')).flatMap((cmd) => arr(field(cmd, 'subcommands')));
    c.shape('GET /api/commands: commands[].subcommands[]', subcommands, { '[].path': 'string', '[].description': 'string', '[].usage': 'string', '[].completions': 'array|absent' });
    const completions = subcommands.flatMap((sub) => arr(field(sub, 'completions')));
    c.shape('GET /api/commands: commands[].subcommands[].completions[]', completions, { '[].position': 'number', '[].type': 'string' });
    const names = arr(field(commands.json, 'commands')).map((cmd) => String(field(cmd, 'name')));
    const name = names.includes('list') ? 'list' : (names[0] ?? 'list');
    const executed = await bridge.post(`/api/commands/${name}/execute`, { args: [], caller: { uuid: NOTCH.uuid, name: NOTCH.name } });
    c.status(`POST /api/commands/${name}/execute {args, caller}`, executed, 200);
    c.shape(`POST /api/commands/${name}/execute {args, caller}`, executed.json, { 'lines[].type': 'string', 'lines[].text': 'string' });

    // /cloud stress start <players> (no group), status, ramp, stop.
    const started = await bridge.call('POST', '/api/stress/start', { body: '{"players":6,"rampSeconds":0}', jsonHeader: true });
    if (c.status('POST /api/stress/start {players, rampSeconds}', started, 200)) {
      c.shape('POST /api/stress/start', started.json, { message: 'string' });
      await c.step('GET /api/stress: simulated players arrive', async () => {
        await waitFor(async () => Number(field((await bridge.get('/api/stress')).json, 'currentPlayers')) > 0, { what: 'simulated players', timeoutMs: 8000 });
      });
      c.shape('GET /api/stress (/cloud stress status)', (await bridge.get('/api/stress')).json, { active: 'boolean', group: 'string|null', currentPlayers: 'number', targetPlayers: 'number', totalCapacity: 'number', overflow: 'number', elapsedSeconds: 'number', 'services{}': 'number' });
      const ramp = await bridge.call('POST', '/api/stress/ramp', { body: '{"players":3,"durationSeconds":1}', jsonHeader: true });
      c.status('POST /api/stress/ramp', ramp, 200);
      c.shape('POST /api/stress/ramp', ramp.json, { message: 'string' });
      c.status('POST /api/stress/stop', await bridge.post('/api/stress/stop'), 200);
    }
    c.status('GET /api/health (reachability poll)', await bridge.get('/api/health', { token: null }), 200);
    c.done();
  }, 30_000);
});

describe('the backend SDK (service token)', () => {
  test('services as NimbusService, custom state set and cleared, health and player reports, groups', async () => {
    const c = new Checks();
    const record: Shape = {
      name: 'string',
      groupName: 'string',
      port: 'number',
      state: 'string',
      customState: 'string|null',
      pid: 'number|null',
      playerCount: 'number',
      startedAt: 'string|null',
      restartCount: 'number',
      uptime: 'string|null',
      tps: 'number|absent',
      memoryUsedMb: 'number',
      memoryMaxMb: 'number',
      healthy: 'boolean',
    };
    const list = await sdk.get('/api/services');
    c.status('GET /api/services', list, 200);
    c.shape('GET /api/services (getServices)', list.json, prefixed('services[].', record));
    c.shape('GET /api/services?group=Echo (getServicesByGroup)', (await sdk.get('/api/services?group=Echo')).json, prefixed('services[].', record));

    c.status('PUT /api/services/Echo-1/state {customState:"INGAME"}', await sdk.put('/api/services/Echo-1/state', { customState: 'INGAME' }), 200);
    c.equal('PUT state INGAME then GET /api/services/Echo-1: customState', field((await sdk.get('/api/services/Echo-1')).json, 'customState'), 'INGAME');
    const byState = arr(field((await sdk.get('/api/services?customState=INGAME')).json, 'services')).map((s) => field(s, 'name'));
    c.equal('GET /api/services?customState=INGAME (getServicesByCustomState)', byState, ['Echo-1']);
    c.equal('GET /api/services/Echo-1/state (getCustomState): customState', field((await sdk.get('/api/services/Echo-1/state')).json, 'customState'), 'INGAME');
    c.status('PUT /api/services/Echo-1/state {customState:null}', await sdk.put('/api/services/Echo-1/state', { customState: null }), 200);
    const cleared = (await sdk.get('/api/services/Echo-1')).json;
    c.shape('PUT state null then GET /api/services/Echo-1', cleared, { ...record, customState: 'null' });
    c.status('PUT /api/services/Echo-1/state {customState:"WAITING"}', await sdk.put('/api/services/Echo-1/state', { customState: 'WAITING' }), 200);
    c.status('PUT /api/services/Echo-1/state {}', await sdk.put('/api/services/Echo-1/state', {}), 200);
    c.equal('PUT state {} then GET /api/services/Echo-1: customState', field((await sdk.get('/api/services/Echo-1')).json, 'customState'), null);

    c.status('PUT /api/services/Echo-1/health', await sdk.put('/api/services/Echo-1/health', { tps: 19.5, memoryUsedMb: 1, memoryMaxMb: 2 }), 200);
    const healthy = (await sdk.get('/api/services/Echo-1')).json;
    c.shape('PUT health then GET /api/services/Echo-1', healthy, { ...record, tps: 'number' });
    c.equal('PUT health then GET /api/services/Echo-1: tps', field(healthy, 'tps'), 19.5);

    c.status('PUT /api/services/Echo-1/players {playerCount:2}', await sdk.put('/api/services/Echo-1/players', { playerCount: 2 }), 200);
    c.equal('PUT players then GET /api/services/Echo-1: playerCount', field((await sdk.get('/api/services/Echo-1')).json, 'playerCount'), 2);
    c.status('PUT /api/services/Echo-1/players {playerCount:0}', await sdk.put('/api/services/Echo-1/players', { playerCount: 0 }), 200);

    c.shape('GET /api/groups (getGroups)', (await sdk.get('/api/groups')).json, {
      'groups[].name': 'string',
      'groups[].type': 'string',
      'groups[].software': 'string',
      'groups[].version': 'string',
      'groups[].template': 'string',
      'groups[].activeInstances': 'number',
      'groups[].scaling.maxInstances': 'number',
      'groups[].resources.maxPlayers': 'number',
    });
    c.shape('GET /api/groups/Echo (getGroup)', (await sdk.get('/api/groups/Echo')).json, { name: 'string', template: 'string', activeInstances: 'number', 'scaling.maxInstances': 'number', 'resources.maxPlayers': 'number' });
    c.done();
  }, 20_000);
});

describe('the cluster pages (dashboard)', () => {
  test('nodes, the load balancer with a READY proxy, the bootstrap card', async () => {
    const c = new Checks();
    await c.step('node-1 connected', async () => {
      await waitFor(async () => arr(field((await dashboard.get('/api/nodes')).json, 'nodes')).some((n) => field(n, 'isConnected') === true), { what: 'node-1 connected', timeoutMs: 20_000 });
    });
    const nodes = await dashboard.get('/api/nodes');
    c.status('GET /api/nodes', nodes, 200);
    c.shape('GET /api/nodes', nodes.json, {
      total: 'number',
      'nodes[].nodeId': 'string',
      'nodes[].host': 'string',
      'nodes[].agentVersion': 'string',
      'nodes[].maxMemory': /^\d+[MG]$/,
      'nodes[].maxServices': 'number',
      'nodes[].currentServices': 'number',
      'nodes[].cpuUsage': 'number',
      'nodes[].memoryUsedMb': 'number',
      'nodes[].memoryTotalMb': 'number',
      'nodes[].isConnected': 'boolean',
      'nodes[].services': 'array',
      'nodes[].services[]?': 'string',
      'nodes[].system': 'object|null',
      ...prefixed('nodes[].', SYSTEM_INFO),
    });
    // The agent is the same binary on the same runtime as the controller: the same runtime version.
    const controllerRuntime = field((await dashboard.get('/api/controller/info')).json, 'system', 'javaVersion');
    c.equal('GET /api/nodes: nodes[0].system.javaVersion (the agent runtime, as the controller reports its own)', field(arr(field(nodes.json, 'nodes'))[0], 'system', 'javaVersion'), controllerRuntime);

    const created = await admin.post('/api/groups', { name: 'Proxy', software: 'VELOCITY', version: '3.4.0', memory: '256M', minInstances: 1, maxInstances: 1, startCommand: paperCommand(), placementNode: 'local' });
    c.status('setup: POST /api/groups Proxy', created, 201);
    await c.step('Proxy-1 READY', () => waitReady('Proxy-1'));
    await c.step('the load balancer lists Proxy-1', async () => {
      await waitFor(async () => arr(field((await dashboard.get('/api/loadbalancer')).json, 'backends')).length > 0, { what: 'a backend', timeoutMs: 10_000 });
    });
    const lb = await dashboard.get('/api/loadbalancer');
    c.status('GET /api/loadbalancer', lb, 200);
    c.shape('GET /api/loadbalancer', lb.json, {
      enabled: 'boolean',
      proxyProtocol: 'boolean',
      bind: 'string',
      strategy: 'string',
      port: 'number',
      totalConnections: 'number',
      activeConnections: 'number',
      rejectedConnections: 'number',
      'backends[].name': 'string',
      'backends[].host': 'string',
      'backends[].port': 'number',
      'backends[].playerCount': 'number',
      'backends[].connectionCount': 'number',
      'backends[].health': 'string',
    });

    const preflight = await dashboard.call('OPTIONS', '/api/cluster/bootstrap', {
      token: null,
      jsonHeader: false,
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization,content-type' },
    });
    c.status('OPTIONS /api/cluster/bootstrap (CORS preflight)', preflight, 200, 204);
    c.that('OPTIONS /api/cluster/bootstrap (CORS preflight): access-control-allow-headers', /authorization/i.test(preflight.headers.get('access-control-allow-headers') ?? ''), `got ${JSON.stringify(preflight.headers.get('access-control-allow-headers'))}`);
    const bootstrap = await dashboard.get('/api/cluster/bootstrap', { token: CLUSTER });
    c.status('GET /api/cluster/bootstrap (cluster token)', bootstrap, 200);
    c.shape('GET /api/cluster/bootstrap', bootstrap.json, { fingerprint: 'string', certPem: 'string', wsUrl: 'string', validUntil: 'string', 'sans[]': 'string' });
    c.done();
  }, 45_000);
});

describe('metric samples (taken every [metrics] sample_interval: 1 s here)', () => {
  test('the network player history and a service history carry the sample fields the charts read', async () => {
    const c = new Checks();
    const samples = (path: string) => async () => {
      const answer = await dashboard.get(path);
      if (answer.status !== 200) throw new Error(`status ${answer.status}: ${answer.text.slice(0, 200)}`);
      return arr(field(answer.json, 'samples')).length > 0 ? answer : null;
    };
    await c.step('GET /api/metrics/players/history?minutes=60 (first sample)', async () => {
      const history = await eventually(samples('/api/metrics/players/history?minutes=60'), { what: 'a network player sample', timeoutMs: 25_000 });
      c.shape('GET /api/metrics/players/history?minutes=60', history.json, { 'samples[].timestamp': 'string', 'samples[].totalPlayers': 'number', 'samples[].byGroup': 'object', 'samples[].byGroup{}?': 'number' });
    });
    await c.step('GET /api/services/Lobby-1/metrics/history?minutes=60 (first sample)', async () => {
      const history = await eventually(samples('/api/services/Lobby-1/metrics/history?minutes=60'), { what: 'a Lobby-1 sample', timeoutMs: 25_000 });
      c.shape('GET /api/services/Lobby-1/metrics/history?minutes=60', history.json, { 'samples[].timestamp': 'string', 'samples[].memoryUsedMb': 'number', 'samples[].memoryMaxMb': 'number', 'samples[].playerCount': 'number' });
    });
    c.done();
  }, 60_000);
});

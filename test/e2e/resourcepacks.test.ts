/**
 * The resource packs module in the compiled binary, driven exactly the way its clients drive it
 * (REFERENCE-MODULES §8 "Plugin client" and "Dashboard reads"):
 *   - the dashboard (master token) creates URL packs with {name, url, sha1Hash (lower-cased),
 *     promptMessage, force}, uploads LOCAL packs as a raw application/octet-stream body with
 *     ?name=&force=&prompt=, lists {packs, total} reading every field of P, assigns with
 *     {scope, target, priority}, lists assignments (a bare array), removes one, deletes a pack;
 *   - the backend plugin (service token) asks for-group/<group>?service=<service> when a player
 *     joins and applies the packs in the order given; the player's client downloads each LOCAL
 *     pack from its absolute url WITHOUT a token and checks it against sha1Hash; the plugin
 *     reports POST status {playerUuid, packUuid, status} (the zero uuid when the event has none);
 *   - an /api/events socket (service token) hears the RESOURCE_PACK_* events with string data.
 * Last, kill -9 and a restart with `[resourcepacks] public_base_url` set: packs and assignments
 * are all there, and the stack's LOCAL urls start with the public base.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deriveServiceToken } from '../../src/core/auth';
import { startBinaryController, svcBinary } from '../support/binary';
import { expectErrorBody, readJson, tempDir, waitFor } from '../support/controller';
import { offlineUuid } from '../support/minecraft-client';
import { openEventSocket } from '../support/events-socket';
import { expectExactShape } from './contract/expect-shape';

const TOKEN = 'resourcepacks-e2e-token-0123456789abcdef';
const SERVICE_TOKEN = deriveServiceToken(TOKEN);
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ZERO_UUID = '00000000-0000-0000-0000-000000000000';
const PUBLIC_BASE = 'https://packs.example.net';
const STEVE = offlineUuid('Steve');

// ---------------------------------------------------------------------------------------------
// A small valid zip: one stored entry, local file header + data + central directory + EOCD.

function storedZip(name: string, content: string): Uint8Array {
  const fileName = Buffer.from(name);
  const data = Buffer.from(content);
  const crc = Bun.hash.crc32(data);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(0, 6); // flags
  local.writeUInt16LE(0, 8); // stored
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(data.length, 18);
  local.writeUInt32LE(data.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4); // version made by
  central.writeUInt16LE(20, 6); // version needed
  central.writeUInt16LE(0, 10); // stored
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(data.length, 20);
  central.writeUInt32LE(data.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  central.writeUInt32LE(0, 42); // offset of the local header
  const centralOffset = local.length + fileName.length + data.length;
  const centralSize = central.length + fileName.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8); // entries on this disk
  end.writeUInt16LE(1, 10); // entries in all
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(centralOffset, 16);
  return new Uint8Array(Buffer.concat([local, fileName, data, central, fileName, end]));
}

const packMeta = (description: string) => JSON.stringify({ pack: { pack_format: 34, description } });
const sha1 = (bytes: Uint8Array) => new Bun.CryptoHasher('sha1').update(bytes).digest('hex');

const LOBBY_ZIP = storedZip('pack.mcmeta', packMeta('Lobby textures'));
const ARENA_ZIP = storedZip('pack.mcmeta', packMeta('Arena sounds for Lobby-1'));
/** A URL pack's hash as an operator pastes it (upper case); the dashboard lower-cases it before sending. */
const URL_PACK_SHA1 = sha1(new TextEncoder().encode('the network-wide pack hosted elsewhere')).toUpperCase();

// ---------------------------------------------------------------------------------------------
// Shapes the clients read

/** P of §8, what the dashboard's resource pack page reads. */
interface Pack {
  id: number;
  packUuid: string;
  name: string;
  source: string;
  url: string;
  sha1Hash: string;
  promptMessage: string;
  force: boolean;
  fileSize: number;
  uploadedAt: string;
  uploadedBy: string;
}
interface Assignment {
  id: number;
  packId: number;
  scope: string;
  target: string;
  priority: number;
}
/** A stack item, what the backend plugin reads. */
interface StackPack {
  packUuid: string;
  name: string;
  url: string;
  sha1Hash: string;
  promptMessage: string;
  force: boolean;
  priority: number;
}
interface Frame {
  type: string;
  timestamp: string;
  data: Record<string, string>;
}

const P_TYPES: Record<keyof Pack, string> = {
  id: 'number',
  packUuid: 'string',
  name: 'string',
  source: 'string',
  url: 'string',
  sha1Hash: 'string',
  promptMessage: 'string',
  force: 'boolean',
  fileSize: 'number',
  uploadedAt: 'string',
  uploadedBy: 'string',
};
const A_TYPES: Record<keyof Assignment, string> = { id: 'number', packId: 'number', scope: 'string', target: 'string', priority: 'number' };
const S_TYPES: Record<keyof StackPack, string> = {
  packUuid: 'string',
  name: 'string',
  url: 'string',
  sha1Hash: 'string',
  promptMessage: 'string',
  force: 'boolean',
  priority: 'number',
};

function expectPack(value: unknown): Pack {
  expectExactShape(value, P_TYPES, 'P');
  const p = value as Pack;
  expect(Number.isInteger(p.id)).toBe(true);
  expect(p.packUuid).toMatch(UUID);
  expect(['URL', 'LOCAL']).toContain(p.source);
  expect(p.sha1Hash).toMatch(/^[0-9a-f]{40}$/);
  expect(Number.isInteger(p.fileSize)).toBe(true);
  expect(p.uploadedAt).toMatch(ISO);
  // The relative path of a LOCAL pack; the stack makes it absolute.
  if (p.source === 'LOCAL') expect(p.url).toBe(`/api/resourcepacks/files/${p.packUuid}.zip`);
  return p;
}
function expectAssignment(value: unknown): Assignment {
  expectExactShape(value, A_TYPES, 'assignment');
  return value as Assignment;
}
function expectStackPack(value: unknown): StackPack {
  expectExactShape(value, S_TYPES, 'stack item');
  return value as StackPack;
}

// ---------------------------------------------------------------------------------------------
// The binary and its clients

type Binary = Awaited<ReturnType<typeof startBinaryController>>;
let svc: string;
let dir: string;
let removeDir: () => void;
let current: Binary;
const cleanups: (() => void)[] = [];
const frames: Frame[] = [];
let socket: WebSocket | undefined;

const writeConfig = (extra = '') => writeFileSync(join(dir, 'svc.toml'), `[api]\nport = 0\n${extra}`);

const request = (method: string, path: string, body: unknown, token: string | null) =>
  fetch(current.url + path, {
    method,
    headers: { ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
async function ok<T>(method: string, path: string, body?: unknown, token: string = TOKEN, status = 200): Promise<T> {
  const res = await request(method, path, body, token);
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} (expected ${status}) ${await res.text()}`);
  return (await readJson(res)) as T;
}
async function refused(method: string, path: string, body: unknown, status: number, code: string, token: string | null = TOKEN): Promise<string> {
  const res = await request(method, path, body, token);
  expect(res.status).toBe(status);
  const error = await expectErrorBody(res);
  expect(error.error).toBe(code);
  return error.message;
}

/** The dashboard's create form: the hash lower-cased, every field sent. */
const dashboardCreate = async (form: { name: string; url: string; sha1Hash: string; promptMessage: string; force: boolean }) =>
  expectPack(await ok('POST', '/api/resourcepacks', { ...form, sha1Hash: form.sha1Hash.toLowerCase() }, TOKEN, 201));

/** The dashboard's apiUpload: the file as a raw application/octet-stream body, the rest in the query. */
async function dashboardUpload(bytes: Uint8Array, query: { name: string; force: boolean; prompt: string }): Promise<Pack> {
  const qs = new URLSearchParams({ name: query.name, force: String(query.force), prompt: query.prompt });
  const res = await fetch(`${current.url}/api/resourcepacks/upload?${qs}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
    body: bytes,
  });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return expectPack(await readJson(res));
}
const dashboardList = async () => {
  const list = await ok<{ packs: unknown[]; total: number }>('GET', '/api/resourcepacks');
  expect(Object.keys(list).sort()).toEqual(['packs', 'total']);
  return { packs: list.packs.map(expectPack), total: list.total };
};
const dashboardAssign = async (packId: number, body: { scope: string; target: string; priority: number }) =>
  expectAssignment(await ok('POST', `/api/resourcepacks/${packId}/assignments`, body, TOKEN, 201));
const dashboardAssignments = async (packId?: number) => {
  const list = await ok<unknown>('GET', `/api/resourcepacks/assignments${packId === undefined ? '' : `?packId=${packId}`}`);
  expect(Array.isArray(list)).toBe(true);
  return (list as unknown[]).map(expectAssignment);
};

/** The backend plugin on a player's join: its own group and service name, service token. */
const joinStack = async (group: string, service: string) => {
  const answer = await ok<{ packs: unknown[] }>('GET', `/api/resourcepacks/for-group/${encodeURIComponent(group)}?service=${encodeURIComponent(service)}`, undefined, SERVICE_TOKEN);
  expect(Object.keys(answer)).toEqual(['packs']);
  return answer.packs.map(expectStackPack);
};
/** The player's client: fetches the url with no token and checks the bytes against sha1Hash. */
async function clientDownload(pack: StackPack): Promise<Uint8Array> {
  const res = await fetch(pack.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/zip');
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(res.headers.get('content-length')).toBe(String(bytes.length));
  expect(sha1(bytes)).toBe(pack.sha1Hash);
  return bytes;
}
/** The backend plugin's PlayerResourcePackStatusEvent report. */
const reportStatus = (playerUuid: string, packUuid: string, status: string) =>
  ok<{ success: boolean; message: string }>('POST', '/api/resourcepacks/status', { playerUuid, packUuid, status }, SERVICE_TOKEN);

/** An events socket as a plugin keeps it (service token in the Authorization header). */
async function listen(): Promise<void> {
  socket?.close();
  socket = await openEventSocket<Frame>(current.url, SERVICE_TOKEN, (f) => frames.push(f));
}
const frame = (type: string, match: Record<string, string>) =>
  waitFor(() => frames.find((f) => f.type === type && Object.entries(match).every(([k, v]) => f.data[k] === v)), { what: `a ${type} frame with ${JSON.stringify(match)}`, timeoutMs: 5000 });
/** Every frame is {type, timestamp, data} with string values; module events name their module. */
function expectFrame(f: Frame, keys: string[]): void {
  expect(Object.keys(f).sort()).toEqual(['data', 'timestamp', 'type']);
  expect(f.timestamp).toMatch(ISO);
  expect(Object.keys(f.data).sort()).toEqual([...keys, 'moduleId'].sort());
  expect(f.data.moduleId).toBe('resourcepacks');
  for (const value of Object.values(f.data)) expect(typeof value).toBe('string');
}

async function restart(): Promise<void> {
  current.child.kill('SIGKILL');
  await current.child.exited;
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
  await listen();
}

beforeAll(async () => {
  svc = await svcBinary();
  ({ dir, remove: removeDir } = tempDir('svc-resourcepacks-e2e-'));
  writeConfig();
  current = await startBinaryController(svc, dir, TOKEN, cleanups);
  await listen();
}, 120_000);

afterAll(() => {
  socket?.close();
  for (const cleanup of cleanups) cleanup();
  removeDir();
});

// Packs and assignments the later tests refer to.
const packs = {} as { network: Pack; lobby: Pack; arena: Pack };
const assigned = {} as { global: Assignment; group: Assignment; service: Assignment; arenaGroup: Assignment };

describe('the resource packs dashboard and backend plugin against the compiled binary', () => {
  test('the dashboard registers a URL pack; the hash is stored lower-case and RESOURCE_PACK_CREATED goes out', async () => {
    const form = { name: 'Network Pack', url: 'https://cdn.example.org/packs/network.zip', sha1Hash: URL_PACK_SHA1, promptMessage: 'Our network textures', force: false };
    packs.network = await dashboardCreate(form);
    expect(packs.network).toMatchObject({ name: 'Network Pack', source: 'URL', url: form.url, sha1Hash: URL_PACK_SHA1.toLowerCase(), promptMessage: 'Our network textures', force: false, fileSize: 0, uploadedBy: 'api:admin' });
    const created = await frame('RESOURCE_PACK_CREATED', { id: String(packs.network.id) });
    expectFrame(created, ['id', 'name', 'source']);
    expect(created.data).toMatchObject({ name: 'Network Pack', source: 'URL' });
    // A hash that is not 40 hex characters is refused, and nothing is stored.
    await refused('POST', '/api/resourcepacks', { ...form, sha1Hash: 'abc123' }, 400, 'VALIDATION_FAILED');
    await refused('POST', '/api/resourcepacks', { ...form, url: 'ftp://cdn.example.org/p.zip', sha1Hash: URL_PACK_SHA1.toLowerCase() }, 400, 'RESOURCE_PACK_INVALID_URL');
    expect((await dashboardList()).total).toBe(1);
  });

  test('the dashboard uploads LOCAL packs as raw octet-stream bodies with name, force and prompt in the query', async () => {
    packs.lobby = await dashboardUpload(LOBBY_ZIP, { name: 'Lobby Pack', force: true, prompt: 'Lobby textures: please accept' });
    expect(packs.lobby).toMatchObject({ name: 'Lobby Pack', source: 'LOCAL', sha1Hash: sha1(LOBBY_ZIP), promptMessage: 'Lobby textures: please accept', force: true, fileSize: LOBBY_ZIP.length, uploadedBy: 'api:admin' });
    const created = await frame('RESOURCE_PACK_CREATED', { id: String(packs.lobby.id) });
    expectFrame(created, ['id', 'name', 'source']);
    expect(created.data).toMatchObject({ name: 'Lobby Pack', source: 'LOCAL' });
    expect(existsSync(join(dir, 'data', 'resourcepacks', `${packs.lobby.packUuid}.zip`))).toBe(true);

    packs.arena = await dashboardUpload(ARENA_ZIP, { name: 'Arena Sounds', force: false, prompt: '' });
    expect(packs.arena).toMatchObject({ source: 'LOCAL', sha1Hash: sha1(ARENA_ZIP), promptMessage: '', force: false, fileSize: ARENA_ZIP.length });
    expect(packs.arena.packUuid).not.toBe(packs.lobby.packUuid);
  });

  test('the dashboard list is {packs, total}, newest first, every field as uploaded', async () => {
    const list = await dashboardList();
    expect(list.total).toBe(3);
    expect(list.packs).toEqual([packs.arena, packs.lobby, packs.network]);
    const uploadedAt = list.packs.map((p) => Date.parse(p.uploadedAt));
    expect(uploadedAt).toEqual([...uploadedAt].sort((a, b) => b - a));
    expect(await ok('GET', `/api/resourcepacks/${packs.lobby.id}`)).toEqual(packs.lobby);
    await refused('GET', '/api/resourcepacks/999999', undefined, 404, 'RESOURCE_PACK_NOT_FOUND');
  });

  test('assignments at GLOBAL, GROUP and SERVICE are each announced and listed as a bare array by priority', async () => {
    assigned.global = await dashboardAssign(packs.network.id, { scope: 'GLOBAL', target: '', priority: 5 });
    assigned.group = await dashboardAssign(packs.lobby.id, { scope: 'GROUP', target: 'Lobby', priority: 0 });
    assigned.service = await dashboardAssign(packs.arena.id, { scope: 'SERVICE', target: 'Lobby-1', priority: 1 });
    assigned.arenaGroup = await dashboardAssign(packs.arena.id, { scope: 'GROUP', target: 'BedWars', priority: -3 });
    expect(assigned.global).toMatchObject({ packId: packs.network.id, scope: 'GLOBAL', target: '', priority: 5 });
    expect(assigned.group).toMatchObject({ packId: packs.lobby.id, scope: 'GROUP', target: 'Lobby', priority: 0 });
    expect(assigned.service).toMatchObject({ packId: packs.arena.id, scope: 'SERVICE', target: 'Lobby-1', priority: 1 });
    for (const a of Object.values(assigned)) {
      const f = await frame('RESOURCE_PACK_ASSIGNED', { packId: String(a.packId), scope: a.scope, target: a.target });
      expectFrame(f, ['packId', 'scope', 'target']);
    }

    expect(await dashboardAssignments()).toEqual([assigned.arenaGroup, assigned.group, assigned.service, assigned.global]);
    expect(await dashboardAssignments(packs.arena.id)).toEqual([assigned.arenaGroup, assigned.service]);
    // A GROUP assignment needs its group; the same pack, scope and target twice is refused (no 500).
    await refused('POST', `/api/resourcepacks/${packs.lobby.id}/assignments`, { scope: 'GROUP', target: '', priority: 0 }, 400, 'VALIDATION_FAILED');
    await refused('POST', `/api/resourcepacks/${packs.lobby.id}/assignments`, { scope: 'GROUP', target: 'Lobby', priority: 9 }, 409, 'RESOURCE_PACK_ALREADY_EXISTS');
    await refused('POST', '/api/resourcepacks/999999/assignments', { scope: 'GLOBAL', target: '', priority: 0 }, 404, 'RESOURCE_PACK_NOT_FOUND');
  });

  test('on join the backend gets the stack in apply order (GLOBAL, GROUP, SERVICE) and the client downloads each LOCAL pack without a token, matching its SHA-1', async () => {
    const stack = await joinStack('Lobby', 'Lobby-1');
    expect(stack.map((p) => p.packUuid)).toEqual([packs.network.packUuid, packs.lobby.packUuid, packs.arena.packUuid]);
    expect(stack[0]).toEqual({ packUuid: packs.network.packUuid, name: 'Network Pack', url: packs.network.url, sha1Hash: packs.network.sha1Hash, promptMessage: 'Our network textures', force: false, priority: 5 });
    expect(stack[1]).toEqual({ packUuid: packs.lobby.packUuid, name: 'Lobby Pack', url: current.url + packs.lobby.url, sha1Hash: sha1(LOBBY_ZIP), promptMessage: 'Lobby textures: please accept', force: true, priority: 0 });
    expect(stack[2]).toMatchObject({ packUuid: packs.arena.packUuid, url: current.url + packs.arena.url, priority: 1, force: false });

    for (const pack of stack.filter((p) => p.url.startsWith(current.url))) await clientDownload(pack);
    expect(await clientDownload(stack[1]!)).toEqual(LOBBY_ZIP);

    // Another server of the group: no SERVICE pack. A server of another group: the global pack, then that group's.
    expect((await joinStack('Lobby', 'Lobby-2')).map((p) => p.packUuid)).toEqual([packs.network.packUuid, packs.lobby.packUuid]);
    expect((await joinStack('BedWars', 'BedWars-1')).map((p) => [p.packUuid, p.priority])).toEqual([
      [packs.network.packUuid, 5],
      [packs.arena.packUuid, -3],
    ]);
  });

  test('the backend reports ACCEPTED, SUCCESSFULLY_LOADED, DECLINED and a status with the zero uuid; each is a RESOURCE_PACK_STATUS frame', async () => {
    const reports: [string, string][] = [
      [packs.lobby.packUuid, 'ACCEPTED'],
      [packs.lobby.packUuid, 'SUCCESSFULLY_LOADED'],
      [packs.arena.packUuid, 'DECLINED'],
      [ZERO_UUID, 'FAILED_DOWNLOAD'],
    ];
    for (const [packUuid, status] of reports) {
      expect(await reportStatus(STEVE, packUuid, status)).toEqual({ success: true, message: 'Status recorded' });
      const f = await frame('RESOURCE_PACK_STATUS', { player: STEVE, pack: packUuid, status });
      expectFrame(f, ['player', 'pack', 'status']);
    }
    await refused('POST', '/api/resourcepacks/status', { playerUuid: 'not-a-uuid', packUuid: ZERO_UUID, status: 'ACCEPTED' }, 400, 'VALIDATION_FAILED', SERVICE_TOKEN);
  });

  test('the dashboard removes an assignment: RESOURCE_PACK_UNASSIGNED, and the stack no longer has it', async () => {
    expect(await ok('DELETE', `/api/resourcepacks/assignments/${assigned.service.id}`)).toEqual({ success: true, message: 'Assignment removed' });
    const f = await frame('RESOURCE_PACK_UNASSIGNED', { packId: String(packs.arena.id), scope: 'SERVICE', target: 'Lobby-1' });
    expectFrame(f, ['packId', 'scope', 'target']);
    expect((await joinStack('Lobby', 'Lobby-1')).map((p) => p.packUuid)).toEqual([packs.network.packUuid, packs.lobby.packUuid]);
    expect(await dashboardAssignments(packs.arena.id)).toEqual([assigned.arenaGroup]);
    await refused('DELETE', `/api/resourcepacks/assignments/${assigned.service.id}`, undefined, 404, 'RESOURCE_PACK_ASSIGNMENT_NOT_FOUND');
  });

  test('kill -9 and a restart with public_base_url: packs and assignments are all there, and LOCAL urls start with the public base', async () => {
    const before = await dashboardList();
    const assignmentsBefore = await dashboardAssignments();
    writeConfig(`\n[resourcepacks]\npublic_base_url = "${PUBLIC_BASE}"\n`);
    await restart();
    expect(await dashboardList()).toEqual(before);
    expect(await dashboardAssignments()).toEqual(assignmentsBefore);

    const stack = await joinStack('Lobby', 'Lobby-1');
    expect(stack.map((p) => p.url)).toEqual([packs.network.url, `${PUBLIC_BASE}/api/resourcepacks/files/${packs.lobby.packUuid}.zip`]);
    // Behind the proxy that public base points at, the same path is served by the controller.
    const local = stack[1]!;
    await clientDownload({ ...local, url: current.url + local.url.slice(PUBLIC_BASE.length) });
  }, 30_000);

  test('the dashboard deletes a LOCAL pack: its assignments go (UNASSIGNED), RESOURCE_PACK_DELETED, and the file is no longer served', async () => {
    const file = join(dir, 'data', 'resourcepacks', `${packs.lobby.packUuid}.zip`);
    expect(await ok('DELETE', `/api/resourcepacks/${packs.lobby.id}`)).toEqual({ success: true, message: "Pack 'Lobby Pack' deleted" });
    expectFrame(await frame('RESOURCE_PACK_UNASSIGNED', { packId: String(packs.lobby.id), scope: 'GROUP', target: 'Lobby' }), ['packId', 'scope', 'target']);
    const deleted = await frame('RESOURCE_PACK_DELETED', { id: String(packs.lobby.id) });
    expectFrame(deleted, ['id', 'name']);
    expect(deleted.data.name).toBe('Lobby Pack');

    expect(existsSync(file)).toBe(false);
    await refused('GET', packs.lobby.url, undefined, 404, 'RESOURCE_PACK_NOT_FOUND', null);
    const list = await dashboardList();
    expect(list.total).toBe(2);
    expect(list.packs.map((p) => p.id)).toEqual([packs.arena.id, packs.network.id]);
    expect((await dashboardAssignments()).map((a) => a.id)).toEqual([assigned.arenaGroup.id, assigned.global.id]);
    expect((await joinStack('Lobby', 'Lobby-1')).map((p) => p.packUuid)).toEqual([packs.network.packUuid]);
    await refused('DELETE', `/api/resourcepacks/${packs.lobby.id}`, undefined, 404, 'RESOURCE_PACK_NOT_FOUND');
  });
});

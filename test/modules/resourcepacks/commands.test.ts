/**
 * The `resourcepacks` console command: the same registry as the routes, read back through
 * them. Uploading from a path reads the controller's own disk, so only the local console may;
 * through /api/commands it is refused.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutputLine } from '../../../src/core/commands/command';
import { resourcePacksModule } from '../../../src/modules/resourcepacks';
import { readJson, startController, type TestController } from '../../support/controller';

let c: TestController;
const SHA1 = 'ab'.repeat(20);

beforeAll(async () => {
  c = await startController({ modules: [resourcePacksModule] });
});
afterAll(() => c.stop());

/** Runs the command as the local console does. */
async function onConsole(args: string[]): Promise<{ success: boolean; message?: string; lines: OutputLine[] }> {
  const lines: OutputLine[] = [];
  const command = c.controller.kernel.commands.find('resourcepacks')!;
  const result = await c.controller.kernel.commands.run(command, { args, actor: 'console', caller: 'test' }, (l) => lines.push(l));
  return { ...result, lines };
}

async function remote(args: string[]): Promise<{ status: number; body: ReturnType<typeof JSON.parse> }> {
  const res = await c.api('/api/commands/resourcepacks/execute', { method: 'POST', json: { args } });
  return { status: res.status, body: await readJson(res) };
}

/** A zip with one stored, empty entry: local file header, central directory, end record. */
function tinyZip(): Uint8Array {
  const name = new TextEncoder().encode('a');
  const local = new Uint8Array(30 + name.length);
  const lv = new DataView(local.buffer);
  lv.setUint32(0, 0x04034b50, true);
  lv.setUint16(26, name.length, true);
  local.set(name, 30);
  const central = new Uint8Array(46 + name.length);
  const cv = new DataView(central.buffer);
  cv.setUint32(0, 0x02014b50, true);
  cv.setUint16(28, name.length, true);
  central.set(name, 46);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, 1, true);
  ev.setUint16(10, 1, true);
  ev.setUint32(12, central.length, true);
  ev.setUint32(16, local.length, true);
  return new Uint8Array([...local, ...central, ...end]);
}

describe('resourcepacks command', () => {
  test('add registers a URL pack with its flags; list shows it', async () => {
    const added = await onConsole(['add', 'Base', 'https://cdn.example.com/base.zip', SHA1.toUpperCase(), '--force', '--prompt', 'Please', 'accept']);
    expect(added.success).toBe(true);
    const packs = (await readJson(await c.api('/api/resourcepacks'))).packs;
    expect(packs[0]).toMatchObject({ name: 'Base', source: 'URL', sha1Hash: SHA1, force: true, promptMessage: 'Please accept', uploadedBy: 'console' });
    const listed = await onConsole(['list']);
    expect(listed.lines.some((l) => l.text.startsWith(`#${packs[0].id} Base [URL]`))).toBe(true);
  });

  test('add refuses a bad hash and a bad URL with a message', async () => {
    expect((await onConsole(['add', 'X', 'https://cdn.example.com/x.zip', 'nothex'])).success).toBe(false);
    const badUrl = await onConsole(['add', 'X', 'ftp://cdn.example.com/x.zip', SHA1]);
    expect(badUrl).toMatchObject({ success: false });
    expect(badUrl.message).toContain('http:// or https://');
  });

  test('upload from a path on the local console; refused through the API', async () => {
    const file = join(c.dir, 'pack.zip');
    writeFileSync(file, tinyZip());
    const uploaded = await onConsole(['upload', 'Local', file]);
    expect(uploaded.success).toBe(true);
    const pack = (await readJson(await c.api('/api/resourcepacks'))).packs.find((p: { name: string }) => p.name === 'Local');
    expect(pack).toMatchObject({ source: 'LOCAL', fileSize: tinyZip().length });
    expect(existsSync(join(c.dir, 'data/resourcepacks', `${pack.packUuid}.zip`))).toBe(true);

    const refused = await remote(['upload', 'Remote', file]);
    expect(refused.status).toBe(422);
    expect(refused.body.message).toContain('local console only');
    expect((await readJson(await c.api('/api/resourcepacks'))).packs.some((p: { name: string }) => p.name === 'Remote')).toBe(false);
  });

  test('assign at each scope, assignments, stack in order, unassign, remove', async () => {
    expect((await onConsole(['add', 'Stacked', 'https://cdn.example.com/s.zip', SHA1])).success).toBe(true);
    const id = (await readJson(await c.api('/api/resourcepacks'))).packs.find((p: { name: string }) => p.name === 'Stacked').id as number;
    expect((await onConsole(['assign', String(id), 'service', 'Lobby-1', '5'])).success).toBe(true);
    expect((await onConsole(['assign', String(id), 'GLOBAL'])).success).toBe(true);
    const duplicate = await onConsole(['assign', String(id), 'global']);
    expect(duplicate.success).toBe(false);
    expect(duplicate.message).toContain('already assigned globally');
    expect((await onConsole(['assign', String(id), 'group'])).success).toBe(false);
    expect((await onConsole(['assign', String(id), 'group', 'Lobby', 'high'])).success).toBe(false);

    const listed = await onConsole(['assignments', String(id)]);
    expect(listed.lines.filter((l) => l.kind === 'item').map((l) => l.text.replace(/^#\d+ /, ''))).toEqual([`pack ${id} GLOBAL priority 0`, `pack ${id} SERVICE Lobby-1 priority 5`]);
    const stack = await onConsole(['stack', 'Lobby', 'Lobby-1']);
    expect(stack.lines.filter((l) => l.kind === 'item').map((l) => l.text)).toEqual(['Stacked https://cdn.example.com/s.zip (priority 5)']);

    const assignmentId = (await readJson(await c.api(`/api/resourcepacks/assignments?packId=${id}`)))[0].id as number;
    expect((await onConsole(['unassign', String(assignmentId)])).success).toBe(true);
    expect((await onConsole(['unassign', String(assignmentId)])).success).toBe(false);
    expect((await onConsole(['remove', String(id)])).success).toBe(true);
    expect((await c.api(`/api/resourcepacks/${id}`)).status).toBe(404);
  });

  test('usage errors: unknown subcommand, a name that is an object key, missing and malformed ids', async () => {
    for (const args of [['nope'], ['constructor'], ['remove'], ['remove', 'x'], ['unassign', '0'], ['assignments', '1', '2'], ['stack']]) {
      const run = await onConsole(args);
      expect(run.success).toBe(false);
    }
    const usage = await remote(['nope']);
    expect(usage.status).toBe(422);
  });
});

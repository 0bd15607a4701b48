/**
 * The `backup` console command: the same runs, records and retention as the routes, read back
 * through them; usage mistakes fail with a message instead of doing something else.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OutputLine } from '../../../src/core/commands/command';
import { backupModule, backupRuntimeOf } from '../../../src/modules/backup';
import { readJson, startController, type TestController } from '../../support/controller';

let c: TestController;

beforeAll(async () => {
  c = await startController({ modules: [backupModule] });
  mkdirSync(join(c.dir, 'templates/Lobby'), { recursive: true });
  writeFileSync(join(c.dir, 'templates/Lobby/server.properties'), 'motd=A lobby\n');
});
afterAll(() => c.stop());

async function run(...args: string[]): Promise<{ success: boolean; message?: string; lines: OutputLine[] }> {
  const lines: OutputLine[] = [];
  const command = c.controller.kernel.commands.find('backup')!;
  const result = await c.controller.kernel.commands.run(command, { args, actor: 'console', caller: 'test' }, (l) => lines.push(l));
  return { ...result, lines };
}
const texts = (r: { lines: OutputLine[] }) => r.lines.map((l) => l.text);

describe('backup command', () => {
  test('now starts a run in the background; list shows it; verify finds it intact', async () => {
    const started = await run('now', '--type', 'templates');
    expect(started.success).toBe(true);
    expect(texts(started)[0]).toMatch(/^started 1 backup\(s\) in the background: #\d+ templates all$/);
    await backupRuntimeOf(c.controller.kernel).manager.settled();
    const record = (await readJson(await c.api('/api/backups?target=all'))).backups[0];
    expect(record).toMatchObject({ targetType: 'TEMPLATES', status: 'SUCCESS', triggeredBy: 'console' });
    expect(texts(await run('list', '--limit', '5'))).toContain(texts(await run('list', '--target', 'all'))[1]!);
    const verified = await run('verify', String(record.id));
    expect(verified).toMatchObject({ success: true });
    expect(texts(verified)).toEqual([`backup #${record.id} is intact`]);
  });

  test('restore --dry-run lists the files and writes nothing; status and schedule list answer', async () => {
    const record = (await readJson(await c.api('/api/backups?status=success'))).backups[0];
    writeFileSync(join(c.dir, 'templates/Lobby/server.properties'), 'motd=changed\n');
    const dry = await run('restore', String(record.id), '--dry-run');
    expect(dry.success).toBe(true);
    expect(texts(dry)).toContain('Lobby/server.properties');
    expect(await Bun.file(join(c.dir, 'templates/Lobby/server.properties')).text()).toBe('motd=changed\n');
    expect(texts(await run('status'))[0]).toStartWith('0 backup(s) running; archives in ');
    expect(texts(await run('schedule', 'list'))).toHaveLength(3);
  });

  test('prune --dry-run counts without deleting', async () => {
    const before = (await readJson(await c.api('/api/backups'))).total;
    const pruned = await run('prune', '--dry-run', '--retention-class', 'manual');
    expect(pruned.success).toBe(true);
    expect(texts(pruned)[0]).toMatch(/^would delete \d+ backup\(s\)/);
    expect((await readJson(await c.api('/api/backups'))).total).toBe(before);
  });

  test('usage mistakes fail with a message', async () => {
    for (const args of [[], ['nope'], ['constructor'], ['verify'], ['verify', 'x'], ['restore'], ['now', '--type'], ['now', 'extra'], ['schedule', 'drop'], ['prune', '--retention-class', 'yearly']]) {
      const result = await run(...args);
      expect(result.success).toBe(false);
      expect(result.message ?? '').not.toBe('');
    }
    const unknownType = await run('now', '--type', 'worlds');
    expect(unknownType.message).toContain('unknown backup target "worlds"');
  });
});

/**
 * The doctor's Backups section: the schedules and the last good backup; a backup.toml that
 * cannot be used (FAIL, the defaults in force); scheduled backups turned off (WARN).
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { backupModule } from '../../../src/modules/backup';
import { readJson, startController, type TestController } from '../../support/controller';

interface Finding {
  level: string;
  message: string;
  hint: string | null;
}

async function findings(c: TestController): Promise<Finding[]> {
  const report = await readJson(await c.api('/api/doctor'));
  return report.sections.find((s: { name: string }) => s.name === 'Backups').findings;
}

describe('doctor: backups', () => {
  test('a fresh controller: the three default schedules and no backup yet', async () => {
    const c = await startController({ modules: [backupModule] });
    try {
      const found = await findings(c);
      expect(found.map((f) => f.level)).toEqual(['OK']);
      expect(found[0]!.message).toStartWith('3 schedule(s); archives in ');
      expect(found[0]!.message).toEndWith('last successful backup: none yet');
    } finally {
      await c.stop();
    }
  });

  test('a backup.toml that is not TOML is a FAIL naming it; turning schedules off is a WARN', async () => {
    const first = await startController({ modules: [backupModule] });
    await first.stopKeepingDir();
    mkdirSync(join(first.dir, 'config/modules/backup'), { recursive: true });
    writeFileSync(join(first.dir, 'config/modules/backup/backup.toml'), '[backup\nenabled = true\n');
    const c = await startController({ dir: first.dir, modules: [backupModule] });
    try {
      const broken = (await findings(c)).find((f) => f.level === 'FAIL');
      expect(broken?.message).toStartWith('config/modules/backup/backup.toml: ');
      expect(broken?.hint).toContain('PUT /api/backups/config');

      const config = await readJson(await c.api('/api/backups/config'));
      expect((await c.api('/api/backups/config', { method: 'PUT', json: { ...config, enabled: false } })).status).toBe(200);
      const found = await findings(c);
      expect(found.some((f) => f.level === 'FAIL')).toBe(false);
      expect(found.find((f) => f.level === 'WARN')?.message).toBe('scheduled backups are off ([backup] enabled = false)');
    } finally {
      await c.stop();
    }
  });
});

/**
 * The doctor's Punishments section: what is in force, a messages file that cannot be used (the
 * defaults stand in, and the checks go on answering), and whether unseen names can be resolved.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { playersModule } from '../../../src/modules/players';
import { punishmentsModule } from '../../../src/modules/punishments';
import { MESSAGE_DEFAULTS } from '../../../src/modules/punishments/messages';
import { readJson, startController, type TestController } from '../../support/controller';

interface Finding {
  level: string;
  message: string;
  hint: string | null;
}

async function findings(c: TestController): Promise<Finding[]> {
  const report = await readJson(await c.api('/api/doctor'));
  return report.sections.find((s: { name: string }) => s.name === 'Punishments').findings;
}

const UUID = '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9';

describe('doctor: punishments', () => {
  test('counts the records in force and says the lookup is off when name_lookup_url is blank', async () => {
    const c = await startController({ modules: [playersModule, punishmentsModule], toml: '[punishments]\nname_lookup_url = ""\nexpiry_check_interval = 1\n' });
    try {
      expect((await c.api('/api/punishments', { method: 'POST', json: { type: 'BAN', targetName: 'Griefer', targetUuid: UUID } })).status).toBe(201);
      const found = await findings(c);
      // The interval's floor of 5 s holds whatever the file says.
      expect(found[0]!.level).toBe('OK');
      expect(found[0]!.message).toBe('1 ban(s) and mute(s) in force; expiry sweep every 5 s; check answers kept 5 s');
      expect(found.some((f) => f.message.startsWith('the name lookup is off'))).toBe(true);
      expect(found.filter((f) => f.level !== 'OK')).toEqual([]);
    } finally {
      await c.stop();
    }
  });

  test('a messages file that is not TOML is a WARN naming it; the defaults render meanwhile, and a PUT keeps the old file aside', async () => {
    const first = await startController({ modules: [punishmentsModule], toml: '[punishments]\nname_lookup_url = "http://127.0.0.1:1/profiles"\n' });
    const file = join(first.dir, 'config/modules/punishments/messages.toml');
    await first.stopKeepingDir();
    writeFileSync(file, 'ban = "unterminated\n');
    const c = await startController({ dir: first.dir, modules: [punishmentsModule] });
    try {
      const found = await findings(c);
      const broken = found.find((f) => f.level === 'WARN');
      expect(broken?.message).toStartWith('config/modules/punishments/messages.toml: not valid TOML');
      expect(broken?.hint).toContain('PUT /api/punishments/messages');
      // No players module: every name would go to the lookup service, which the doctor names by host only.
      expect(found.some((f) => f.message === 'the players module is not installed: every name is looked up at 127.0.0.1:1')).toBe(true);

      expect((await c.api('/api/punishments', { method: 'POST', json: { type: 'BAN', targetName: 'Griefer', targetUuid: UUID, reason: 'x' } })).status).toBe(201);
      const check = await readJson(await c.api(`/api/punishments/check/${UUID}`));
      expect(check.kickMessage).toBe(MESSAGE_DEFAULTS.ban.replace('{reason}', 'x').replace('{issuer}', 'API').replaceAll('&', '§'));

      expect((await c.api('/api/punishments/messages', { method: 'PUT', json: { kick: 'Bye {reason}' } })).status).toBe(200);
      expect(readFileSync(`${file}.broken`, 'utf8')).toBe('ban = "unterminated\n');
      expect((await findings(c)).filter((f) => f.level === 'WARN')).toEqual([]);
    } finally {
      await c.stop();
    }
  });
});

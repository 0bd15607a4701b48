/**
 * A group's smart scaling file is rendered from ScalingFileSchema and its words. The golden
 * files next to this were written by the hand-laid renderer it replaced: a new group's file must
 * still be those bytes.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultScalingConfig, parseScalingConfig, renderDefaultScalingConfig, renderScalingToml, type GroupScalingConfig } from '../../../src/modules/scaling/config';

const golden = (name: string) => readFileSync(join(import.meta.dir, 'golden', `${name}.toml`), 'utf8');

describe('a group scaling file rendered from its schema', () => {
  test.each([
    ['Lobby', 'Europe/Berlin', 'Lobby-Europe_Berlin'],
    ['bed_wars-2', 'UTC', 'bed_wars-2-UTC'],
  ])('the default file of %s in %s: the bytes the hand-laid renderer wrote', (group, zone, file) => {
    expect(renderDefaultScalingConfig(group, zone)).toBe(golden(file));
    expect(parseScalingConfig(golden(file), group, 'Asia/Tokyo')).toEqual({ ok: true, config: defaultScalingConfig(group, zone) });
  });

  test('settings with rules: the rules are tables after the example, and the file reads back as the settings', () => {
    const config: GroupScalingConfig = {
      ...defaultScalingConfig('Lobby', 'UTC'),
      enabled: true,
      rules: [
        { name: 'evening', days: ['FRIDAY', 'SATURDAY'], from: '18:00', to: '23:30', minInstances: 3, maxInstances: 8 },
        { name: 'night', days: ['SUNDAY'], from: '22:00', to: '02:00', minInstances: 1, maxInstances: null },
      ],
      warmup: { enabled: false, leadTimeMinutes: 30 },
      prediction: { enabled: true, percentile: 75 },
    };
    const text = renderScalingToml(config);
    expect(text).toContain('# max_instances = 8        # optional: the group\'s maximum while the rule is in force\n[[schedule.rules]]\nname = "evening"\n');
    expect(text).toContain('[[schedule.rules]]\nname = "night"\ndays = [ "SUNDAY" ]\nfrom = "22:00"\nto = "02:00"\nmin_instances = 1\n\n[warmup]\n');
    expect(parseScalingConfig(text, 'Lobby', 'Asia/Tokyo')).toEqual({ ok: true, config });
  });
});

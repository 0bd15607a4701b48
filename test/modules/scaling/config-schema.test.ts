import { describe, expect, test } from 'bun:test';
import type { TObject } from '@sinclair/typebox';
import { parse } from 'smol-toml';
import { defaultScalingConfig, parseScalingConfig, renderDefaultScalingConfig, ScalingFileSchema } from '../../../src/modules/scaling/config';

describe('the scaling file schema is the list the reader checks', () => {
  test('the file written for a new group holds the schema\'s sections and keys (the example rule is a comment)', () => {
    const raw = parse(renderDefaultScalingConfig('Lobby', 'UTC')) as Record<string, Record<string, unknown>>;
    const sections = ScalingFileSchema.properties as Record<string, TObject>;
    expect(Object.keys(raw)).toEqual(Object.keys(sections));
    for (const [name, section] of Object.entries(sections)) {
      expect(Object.keys(raw[name]!).every((key) => key in section.properties)).toBe(true);
    }
  });

  test('every key the schema names is accepted, any other refused', () => {
    const rule = Object.keys(ScalingFileSchema.properties.schedule.properties.rules.items.properties);
    expect(rule).toEqual(['name', 'days', 'from', 'to', 'min_instances', 'max_instances']);
    const parsed = parseScalingConfig('[schedule]\nenabled = true\ntimezone = "UTC"\nrules = []\n[warmup]\nenabled = false\nlead_time_minutes = 0\n[prediction]\nenabled = true\npercentile = 100\n', 'G', 'UTC');
    expect(parsed.ok).toBe(true);
    const refused = parseScalingConfig('[warmup]\nlead_time = 3\n', 'G', 'UTC');
    expect(refused).toEqual({ ok: false, problem: 'warmup.lead_time is not a known key (known: enabled, lead_time_minutes)' });
  });

  test('limits come from the schema', () => {
    const max = ScalingFileSchema.properties.warmup.properties.lead_time_minutes.maximum;
    expect(parseScalingConfig(`[warmup]\nlead_time_minutes = ${max}\n`, 'G', 'UTC').ok).toBe(true);
    expect(parseScalingConfig(`[warmup]\nlead_time_minutes = ${max! + 1}\n`, 'G', 'UTC')).toEqual({ ok: false, problem: `warmup.lead_time_minutes must be a whole number from 0 to ${max}, not ${max! + 1}` });
  });

  test('a present file\'s missing keys take the schema defaults', () => {
    const parsed = parseScalingConfig('', 'G', 'UTC');
    expect(parsed).toEqual({ ok: true, config: { ...defaultScalingConfig('G', 'UTC'), enabled: ScalingFileSchema.properties.schedule.properties.enabled.default } });
  });
});

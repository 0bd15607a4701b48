import { describe, expect, test } from 'bun:test';
import { defaultScalingConfig, parseScalingConfig, renderDefaultScalingConfig } from '../../../src/modules/scaling/config';

const parse = (text: string) => parseScalingConfig(text, 'Lobby', 'Europe/Berlin');
const problemOf = (text: string): string => {
  const parsed = parse(text);
  if (parsed.ok) throw new Error(`expected a problem, got ${JSON.stringify(parsed.config)}`);
  return parsed.problem;
};

const rule = (extra: string) => `[schedule]\nenabled = true\n[[schedule.rules]]\nname = "evening"\ndays = ["FRI", "saturday"]\nfrom = "18:00"\nto = "2:00"\nmin_instances = 3\n${extra}`;

describe('smart scaling files', () => {
  test('the file written for a new group reads back as the defaults', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'UTC']) {
      const parsed = parseScalingConfig(renderDefaultScalingConfig('Lobby', zone), 'Lobby', 'Asia/Tokyo');
      expect(parsed).toEqual({ ok: true, config: defaultScalingConfig('Lobby', zone) });
    }
  });

  test('rules: days in any spelling become full names, times are normalised, max is optional', () => {
    const parsed = parse(rule('max_instances = 5\n[warmup]\nlead_time_minutes = 15\n[prediction]\nenabled = true\npercentile = 95'));
    expect(parsed).toEqual({
      ok: true,
      config: {
        group: 'Lobby',
        enabled: true,
        timezone: 'Europe/Berlin',
        rules: [{ name: 'evening', days: ['FRIDAY', 'SATURDAY'], from: '18:00', to: '02:00', minInstances: 3, maxInstances: 5 }],
        warmup: { enabled: true, leadTimeMinutes: 15 },
        prediction: { enabled: true, percentile: 95 },
      },
    });
    const noMax = parse(rule(''));
    expect(noMax.ok && noMax.config.rules[0]!.maxInstances).toBeNull();
  });

  test('a file with rules but no `enabled` means them; an empty file is the defaults with the machine zone', () => {
    const parsed = parse('[[schedule.rules]]\nname = "a"\ndays = ["MON"]\nfrom = "10:00"\nto = "11:00"\nmin_instances = 1\n');
    expect(parsed.ok && parsed.config.enabled).toBe(true);
    const empty = parse('');
    expect(empty.ok && empty.config.timezone).toBe('Europe/Berlin');
  });

  test.each([
    ['not TOML', '[schedule\nenabled = true', /not valid TOML/],
    ['unknown top-level key', '[scheduel]\nenabled = true', /scheduel is not a known key/],
    ['unknown rule key', rule('min_instance = 2'), /schedule\.rules\[1\]\.min_instance is not a known key/],
    ['enabled not a boolean', '[schedule]\nenabled = "yes"', /schedule\.enabled must be true or false/],
    ['bad zone', '[schedule]\ntimezone = "Mars/Olympus"', /schedule\.timezone must be an IANA time zone/],
    ['bad day', rule('').replace('"FRI"', '"FUNDAY"'), /days: "FUNDAY" is not a day/],
    ['no days', rule('').replace('["FRI", "saturday"]', '[]'), /days is required/],
    ['bad clock', rule('').replace('"18:00"', '"25:00"'), /\.from must be a time of day "HH:MM"/],
    ['missing to', rule('').replace('to = "2:00"\n', ''), /\.to must be a time of day "HH:MM" .*not missing/],
    ['missing min', rule('').replace('min_instances = 3\n', ''), /min_instances is required/],
    ['negative min', rule('').replace('min_instances = 3', 'min_instances = -1'), /min_instances must be a whole number from 0/],
    ['max below min', rule('max_instances = 2'), /max_instances \(2\) is below min_instances \(3\)/],
    ['duplicate names', `${rule('')}[[schedule.rules]]\nname = "Evening"\ndays = ["MON"]\nfrom = "10:00"\nto = "11:00"\nmin_instances = 1\n`, /rules\[2\] \("Evening"\): another rule already has this name/],
    ['lead time out of range', '[warmup]\nlead_time_minutes = 5000', /warmup\.lead_time_minutes must be a whole number from 0 to 1440/],
    ['percentile out of range', '[prediction]\npercentile = 0', /prediction\.percentile must be a whole number from 1 to 100/],
    ['rules not tables', '[schedule]\nrules = 3', /schedule\.rules must be written as \[\[schedule\.rules\]\]/],
  ])('%s is reported with the key and what it expects', (_name, text, message) => {
    expect(problemOf(text)).toMatch(message);
  });
});

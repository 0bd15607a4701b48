import { Type as T, type Static, type TBoolean, type TInteger, type TObject } from '@sinclair/typebox';
import type { FileText } from '../../config/unit/file-text';
import { renderToml } from '../../config/unit/render';
import { parseTomlText, TomlSyntaxError } from '../../config/unit/toml-syntax';
import { parseClock, parseDay, type ScheduleRule } from './schedule';
import { isValidTimeZone, type Weekday } from './zoned';

/**
 * One group's smart scaling file, `config/modules/scaling/<Group>.toml` (the group's own
 * spelling), read with the TOML parser and checked key by key: a problem names the key and what
 * it expects, and turns that group's smart scaling off (the others go on).
 */
export interface GroupScalingConfig {
  group: string;
  enabled: boolean;
  timezone: string;
  rules: ScheduleRule[];
  warmup: { enabled: boolean; leadTimeMinutes: number };
  prediction: { enabled: boolean; percentile: number };
}

export const DEFAULT_LEAD_TIME_MINUTES = 10;
export const DEFAULT_PERCENTILE = 90;
const MAX_LEAD_TIME_MINUTES = 24 * 60;
const MAX_RULES = 200;
const MAX_INSTANCES = 10_000;

const RuleSchema = T.Object({
  name: T.String({ minLength: 1, description: 'names the rule; unique in the file, ignoring case' }),
  days: T.Array(T.String(), { minItems: 1, description: 'days the rule opens: MON..SUN or MONDAY..SUNDAY' }),
  from: T.String({ description: 'opens at "HH:MM"' }),
  to: T.String({ description: 'closes at "HH:MM"; when not after `from`, the next day' }),
  min_instances: T.Integer({ minimum: 0, maximum: MAX_INSTANCES, description: "the group's minimum while the rule is in force" }),
  max_instances: T.Optional(T.Integer({ minimum: 1, maximum: MAX_INSTANCES, description: "the group's maximum while the rule is in force" })),
});

/**
 * The file's keys, limits and defaults: the one list the reader below checks against (it says
 * problems in this file's own words: rules counted from 1, "a whole number from … to …").
 */
export const ScalingFileSchema = T.Object({
  schedule: T.Object({
    enabled: T.Boolean({ default: true, description: 'the rules apply (a file with rules but no `enabled` means them)' }),
    timezone: T.Optional(T.String({ description: "IANA zone of the rules' days and times; default: this machine's zone" })),
    rules: T.Array(RuleSchema, { maxItems: MAX_RULES, default: [], description: 'written as [[schedule.rules]] tables' }),
  }),
  warmup: T.Object({
    enabled: T.Boolean({ default: true, description: 'start what a rule needs ahead of it' }),
    lead_time_minutes: T.Integer({ minimum: 0, maximum: MAX_LEAD_TIME_MINUTES, default: DEFAULT_LEAD_TIME_MINUTES, description: 'minutes before a rule opens' }),
  }),
  prediction: T.Object({
    enabled: T.Boolean({ default: false, description: "raise the minimum from the group's own history" }),
    percentile: T.Integer({ minimum: 1, maximum: 100, default: DEFAULT_PERCENTILE, description: 'of the player count at the same weekday and hour' }),
  }),
});
const FILE = ScalingFileSchema.properties;
const RULE = RuleSchema.properties;

export type ParsedScalingConfig = { ok: true; config: GroupScalingConfig } | { ok: false; problem: string };

/** The defaults of a group without a file: schedule off, warm-up on (it only acts on rules), predictions off. */
export function defaultScalingConfig(group: string, timezone: string): GroupScalingConfig {
  return {
    group,
    enabled: false,
    timezone,
    rules: [],
    warmup: { enabled: true, leadTimeMinutes: DEFAULT_LEAD_TIME_MINUTES },
    prediction: { enabled: false, percentile: DEFAULT_PERCENTILE },
  };
}

class Problem extends Error {}

type Table = Record<string, unknown>;

const isTable = (value: unknown): value is Table => typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
const describe = (value: unknown): string => (Array.isArray(value) ? 'an array' : value instanceof Date ? 'a date' : isTable(value) ? 'a table' : JSON.stringify(value));

function onlyKeys(table: Table, where: string, schema: TObject): void {
  const allowed = Object.keys(schema.properties);
  for (const key of Object.keys(table)) {
    if (!allowed.includes(key)) throw new Problem(`${where === '' ? '' : `${where}.`}${key} is not a known key (known: ${allowed.join(', ')})`);
  }
}

function sectionOf(root: Table, name: string): Table {
  const value = root[name];
  if (value === undefined) return {};
  if (!isTable(value)) throw new Problem(`[${name}] must be a table, not ${describe(value)}`);
  return value;
}

/** The key's value; a missing key takes its schema's default. */
function bool(table: Table, where: string, key: string, schema: TBoolean): boolean {
  const value = table[key];
  if (value === undefined) return schema.default === true;
  if (typeof value !== 'boolean') throw new Problem(`${where}.${key} must be true or false, not ${describe(value)}`);
  return value;
}

function integer(table: Table, where: string, key: string, schema: TInteger): number | undefined {
  const { minimum: min = 0, maximum: max = Number.MAX_SAFE_INTEGER } = schema;
  const value = table[key];
  if (value === undefined) return undefined;
  const n = typeof value === 'bigint' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) throw new Problem(`${where}.${key} must be a whole number from ${min} to ${max}, not ${describe(value)}`);
  return n;
}

function rule(value: unknown, index: number, seen: Set<string>): ScheduleRule {
  const where = `schedule.rules[${index + 1}]`;
  if (!isTable(value)) throw new Problem(`${where} must be a table ([[schedule.rules]]), not ${describe(value)}`);
  onlyKeys(value, where, RuleSchema);
  const name = value.name;
  if (typeof name !== 'string' || name.trim() === '') throw new Problem(`${where}.name is required: a non-empty string naming the rule`);
  const label = `${where} ("${name}")`;
  if (seen.has(name.toLowerCase())) throw new Problem(`${label}: another rule already has this name; names must be unique`);
  seen.add(name.toLowerCase());
  const rawDays = value.days;
  if (!Array.isArray(rawDays) || rawDays.length === 0) throw new Problem(`${label}.days is required: a non-empty array such as ["FRI", "SAT"]`);
  const days: Weekday[] = [];
  for (const raw of rawDays) {
    const day = typeof raw === 'string' ? parseDay(raw) : null;
    if (!day) throw new Problem(`${label}.days: ${describe(raw)} is not a day (MON..SUN or MONDAY..SUNDAY)`);
    if (!days.includes(day)) days.push(day);
  }
  const clock = (key: 'from' | 'to'): string => {
    const text = value[key];
    if (typeof text !== 'string' || parseClock(text) === null) throw new Problem(`${label}.${key} must be a time of day "HH:MM" from "00:00" to "23:59", not ${text === undefined ? 'missing' : describe(text)}`);
    const minutes = parseClock(text)!;
    return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
  };
  const from = clock('from');
  const to = clock('to');
  const minInstances = integer(value, label, 'min_instances', RULE.min_instances);
  if (minInstances === undefined) throw new Problem(`${label}.min_instances is required: the group's minimum while the rule is in force`);
  const maxInstances = integer(value, label, 'max_instances', RULE.max_instances) ?? null;
  if (maxInstances !== null && maxInstances < minInstances) throw new Problem(`${label}.max_instances (${maxInstances}) is below min_instances (${minInstances})`);
  return { name, days, from, to, minInstances, maxInstances };
}

/** Parses and checks a file's text; `machineZone` is the zone of a file that names none. */
export function parseScalingConfig(text: string, group: string, machineZone: string): ParsedScalingConfig {
  let root: Table;
  try {
    root = parseTomlText(text);
  } catch (error) {
    if (error instanceof TomlSyntaxError) return { ok: false, problem: error.problem };
    throw error;
  }
  try {
    onlyKeys(root, '', ScalingFileSchema);
    const schedule = sectionOf(root, 'schedule');
    onlyKeys(schedule, 'schedule', FILE.schedule);
    // A file without `enabled` but with rules means them (as the reference reads it).
    const enabled = bool(schedule, 'schedule', 'enabled', FILE.schedule.properties.enabled);
    const zone = schedule.timezone;
    if (zone !== undefined && (typeof zone !== 'string' || !isValidTimeZone(zone))) {
      throw new Problem(`schedule.timezone must be an IANA time zone such as "Europe/Berlin" or "UTC", not ${describe(zone)}`);
    }
    const rawRules = schedule.rules ?? [];
    if (!Array.isArray(rawRules)) throw new Problem(`schedule.rules must be written as [[schedule.rules]] tables, not ${describe(rawRules)}`);
    const maxRules = FILE.schedule.properties.rules.maxItems ?? MAX_RULES;
    if (rawRules.length > maxRules) throw new Problem(`schedule.rules: at most ${maxRules} rules, not ${rawRules.length}`);
    const seen = new Set<string>();
    const rules = rawRules.map((r, i) => rule(r, i, seen));
    const warmup = sectionOf(root, 'warmup');
    onlyKeys(warmup, 'warmup', FILE.warmup);
    const prediction = sectionOf(root, 'prediction');
    onlyKeys(prediction, 'prediction', FILE.prediction);
    return {
      ok: true,
      config: {
        group,
        enabled,
        timezone: typeof zone === 'string' ? zone : machineZone,
        rules,
        warmup: {
          enabled: bool(warmup, 'warmup', 'enabled', FILE.warmup.properties.enabled),
          leadTimeMinutes: integer(warmup, 'warmup', 'lead_time_minutes', FILE.warmup.properties.lead_time_minutes) ?? DEFAULT_LEAD_TIME_MINUTES,
        },
        prediction: {
          enabled: bool(prediction, 'prediction', 'enabled', FILE.prediction.properties.enabled),
          percentile: integer(prediction, 'prediction', 'percentile', FILE.prediction.properties.percentile) ?? DEFAULT_PERCENTILE,
        },
      },
    };
  } catch (error) {
    if (error instanceof Problem) return { ok: false, problem: error.message };
    throw error;
  }
}

/** A group's settings as its file holds them (the rules' keys spelt as the file spells them). */
export function scalingFileValue(config: GroupScalingConfig): Static<typeof ScalingFileSchema> {
  return {
    schedule: {
      enabled: config.enabled,
      timezone: config.timezone,
      rules: config.rules.map((r) => ({ name: r.name, days: [...r.days], from: r.from, to: r.to, min_instances: r.minInstances, ...(r.maxInstances === null ? {} : { max_instances: r.maxInstances }) })),
    },
    warmup: { enabled: config.warmup.enabled, lead_time_minutes: config.warmup.leadTimeMinutes },
    prediction: { enabled: config.prediction.enabled, percentile: config.prediction.percentile },
  };
}

/**
 * The words of a group's file around its keys (ScalingFileSchema has the keys, limits and
 * defaults); the header names the group. An empty rule list is left out, an example rule in its
 * place as a comment.
 */
const scalingText = (group: string): FileText<typeof ScalingFileSchema> => ({
  header: [
    `Smart scaling of group "${group}": a timetable that raises the group's minimum, warm-up`,
    "ahead of it, and predictions from the group's own player history. svc keeps this file when",
    'the group is deleted. Apply changes with `scaling reload` (or a config reload).',
  ],
  keys: {
    schedule: {
      keys: {
        enabled: ['Off until you turn it on. While a rule is in force the group never runs fewer than its', 'min_instances: the autoscaler refills up to it and its idle scale-down stops above it.'],
        timezone: ["The zone the rules' days and times are in (IANA name). Default: this machine's zone."],
        rules: {
          comment: [
            'A rule opens on each listed day at `from` and closes at `to`; when `to` is not after',
            '`from` it closes the next day (a FRI 22:00-02:00 rule covers Saturday 01:00). When rules',
            'overlap, the highest min_instances wins. Days: MON..SUN or MONDAY..SUNDAY.',
            '',
            '[[schedule.rules]]',
            'name = "evening"',
            'days = ["FRI", "SAT"]',
            'from = "18:00"',
            'to = "23:30"',
            'min_instances = 3',
            "max_instances = 8        # optional: the group's maximum while the rule is in force",
          ],
          whenEmpty: 'left out',
        },
      },
    },
    warmup: { intro: ['Start what a rule needs this many minutes before it opens, so servers are READY in time.'] },
    prediction: {
      intro: ['Raise the minimum ahead of time from the same weekday and hour over the last 4 weeks of', "this group's history (a high percentile of the player count, rounded up to instances)."],
    },
  },
});

/** A group's file with `config`'s settings and the words around them. */
export function renderScalingToml(config: GroupScalingConfig): string {
  return renderScalingFile(config.group, scalingFileValue(config));
}

/** A group's file holding `value` (keys as the file spells them), with its words: what a save writes. */
export function renderScalingFile(group: string, value: Static<typeof ScalingFileSchema>): string {
  return renderToml(ScalingFileSchema, scalingText(group), value);
}

/** The file written for a group that has none: its defaults (schedule off), commented, an example rule left commented out. */
export function renderDefaultScalingConfig(group: string, machineZone: string): string {
  return renderScalingToml(defaultScalingConfig(group, machineZone));
}

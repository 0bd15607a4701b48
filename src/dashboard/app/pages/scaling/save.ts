/**
 * Saving a group's schedule: the whole schedule to PUT /api/scaling/schedules/{group} (model.ts),
 * in force on the controller as soon as it answers, and its answer in words. A refusal (400) is
 * placed at the field it names when it names one, in either of the API's spellings: the file
 * reader's, which the controller reads the saved text back with (`schedule.rules[2] ("late").
 * max_instances`, rules counted from 1; `schedule.timezone`, `warmup.lead_time_minutes`,
 * `prediction.percentile`), or the body validator's (`body "rules.1.maxInstances"`, from 0; a
 * path may be written with slashes too).
 */
import { useQueryClient } from '@tanstack/preact-query';
import { ApiFailure } from '../../api';
import { saveSchedule, scheduleKey, SCHEDULES_KEY, STATUS_KEY, DECISIONS_KEY, type Schedule, type ScheduleBody } from './model';
import { refusalText } from './words';

export type FieldKey = 'name' | 'days' | 'from' | 'to' | 'min' | 'max' | 'enabled' | 'timezone' | 'warmup' | 'lead' | 'prediction' | 'percentile';

/** Where a refusal belongs: a rule's field (its index from 0 in the schedule sent), a setting, or the whole form. */
export interface FieldRef {
  rule: number | null;
  key: FieldKey | null;
}

export type SaveOutcome = { kind: 'saved'; schedule: Schedule } | { kind: 'refused'; text: string; field: FieldRef };

const NOWHERE: FieldRef = { rule: null, key: null };

/** A rule's keys in both spellings: the file's (snake case) and the body's (camel case). */
const RULE_KEYS: Readonly<Record<string, FieldKey>> = {
  name: 'name',
  days: 'days',
  from: 'from',
  to: 'to',
  min_instances: 'min',
  minInstances: 'min',
  max_instances: 'max',
  maxInstances: 'max',
};

/** The settings' keys, as a path from the schedule's top (`schedule.` left off), in both spellings. */
const SETTING_KEYS: Readonly<Record<string, FieldKey>> = {
  enabled: 'enabled',
  timezone: 'timezone',
  'warmup.enabled': 'warmup',
  'warmup.lead_time_minutes': 'lead',
  'warmup.leadTimeMinutes': 'lead',
  'prediction.enabled': 'prediction',
  'prediction.percentile': 'percentile',
};

/** A key path (`rules.0.minInstances`, `/rules/0/minInstances`, `warmup.leadTimeMinutes`) as a field; rules counted from 0. */
function pathField(path: string): FieldRef {
  const parts = path.split(/[./]/).filter((p) => p !== '');
  if (parts[0] === 'schedule') parts.shift();
  if (parts[0] === 'rules' && parts[1] !== undefined && /^\d+$/.test(parts[1])) return { rule: Number(parts[1]), key: RULE_KEYS[parts[2] ?? ''] ?? null };
  return { rule: null, key: SETTING_KEYS[parts.join('.')] ?? null };
}

/**
 * The field an API message names at its start, if any. `sent` is the schedule that was sent: the
 * file reader names a rule with its name in quotes, written as it is (so it is matched as sent).
 */
export function fieldOf(message: string, sent: ScheduleBody): FieldRef {
  // The file reader's: `schedule.rules[N]`, then the rule's name in quotes, then `.key` or what is wrong with it.
  const rule = /^schedule\.rules\[(\d+)\]/.exec(message);
  if (rule) {
    const index = Number(rule[1]) - 1;
    let rest = message.slice(rule[0].length);
    const name = sent.rules[index]?.name;
    if (name !== undefined && rest.startsWith(` ("${name}")`)) rest = rest.slice(name.length + 5);
    const key = /^\.(\w+)/.exec(rest);
    if (key) return { rule: index, key: RULE_KEYS[key[1]!] ?? null };
    if (/^: another rule already has this name/.test(rest)) return { rule: index, key: 'name' };
    return { rule: index, key: null };
  }
  // The body validator's (`body "rules.0.minInstances" must …`), a bare path, or a setting of the file's (`schedule.timezone must …`).
  const path = /^(?:body\s+)?"?(\/?[A-Za-z_]\w*(?:[./]\w+)*)/.exec(message);
  return path ? pathField(path[1]!) : NOWHERE;
}

/** The saved schedule's settings in words: what the page says once they are saved. */
export function settingsText(s: Schedule): string {
  const warmup = s.warmup.enabled ? `warm-up ${s.warmup.leadTimeMinutes} min ahead` : 'no warm-up';
  const prediction = s.prediction.enabled ? `prediction at p${s.prediction.percentile}` : 'no prediction';
  return `${s.enabled ? 'the rules apply' : 'the rules do not apply'}, times in ${s.timezone}, ${warmup}, ${prediction}`;
}

export function useSaveSchedule(group: string): (body: ScheduleBody) => Promise<SaveOutcome> {
  const queries = useQueryClient();
  return async (body) => {
    try {
      const schedule = await saveSchedule(group, body);
      queries.setQueryData(scheduleKey(group), schedule);
      // The bounds and the decisions follow at once (SMART_SCHEDULE_SAVED tells every page open the same).
      for (const queryKey of [SCHEDULES_KEY, STATUS_KEY, DECISIONS_KEY]) void queries.invalidateQueries({ queryKey });
      return { kind: 'saved', schedule };
    } catch (error) {
      const placed = error instanceof ApiFailure && error.status === 400 ? fieldOf(error.message, body) : NOWHERE;
      return { kind: 'refused', text: refusalText(error, 'Not saved'), field: placed };
    }
  };
}

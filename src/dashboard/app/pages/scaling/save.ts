/**
 * Saving a group's schedule: the whole schedule to PUT /api/scaling/schedules/{group} (model.ts),
 * and its answer in words. A refusal is placed at the field it names when it names one, in
 * either of the API's spellings: the file reader's (`schedule.rules[2] ("late").max_instances`,
 * rules counted from 1) or the body validator's (`body "rules.1.maxInstances"`, from 0). A
 * controller without the route (ROUTE_NOT_FOUND) gets the group's file with the change instead,
 * to put in place and `scaling reload`.
 */
import { useQueryClient } from '@tanstack/preact-query';
import { ApiFailure } from '../../api';
import { saveSchedule, scheduleKey, SCHEDULES_KEY, STATUS_KEY, DECISIONS_KEY, schedulePath, type Schedule, type ScheduleBody } from './model';
import { scheduleToml } from './toml';
import { refusalText } from './words';

export type FieldKey = 'name' | 'days' | 'from' | 'to' | 'min' | 'max' | 'enabled' | 'timezone' | 'warmup' | 'lead' | 'prediction' | 'percentile';

/** Where a refusal belongs: a rule's field (its index from 0), a setting, or the whole form. */
export interface FieldRef {
  rule: number | null;
  key: FieldKey | null;
}

export type SaveOutcome =
  | { kind: 'saved'; schedule: Schedule }
  | { kind: 'no-route'; text: string; file: string; toml: string }
  | { kind: 'refused'; text: string; field: FieldRef };

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

/** The field an API message names, if any. */
export function fieldOf(message: string): FieldRef {
  const fromFile = /rules\[(\d+)\](?: \("(?:[^"\\]|\\.)*"\))?(?:\.(\w+))?/.exec(message);
  if (fromFile) return { rule: Number(fromFile[1]) - 1, key: fromFile[2] ? (RULE_KEYS[fromFile[2]] ?? null) : null };
  const fromBody = /rules[./](\d+)(?:[./](\w+))?/.exec(message);
  if (fromBody) return { rule: Number(fromBody[1]), key: fromBody[2] ? (RULE_KEYS[fromBody[2]] ?? null) : null };
  if (/lead_?time_?minutes|leadTimeMinutes/i.test(message)) return { rule: null, key: 'lead' };
  if (/percentile/.test(message)) return { rule: null, key: 'percentile' };
  if (/timezone/.test(message)) return { rule: null, key: 'timezone' };
  if (/warmup\.enabled/.test(message)) return { rule: null, key: 'warmup' };
  if (/prediction\.enabled/.test(message)) return { rule: null, key: 'prediction' };
  if (/schedule\.enabled|"enabled"/.test(message)) return { rule: null, key: 'enabled' };
  return { rule: null, key: null };
}

export function useSaveSchedule(group: string): (body: ScheduleBody) => Promise<SaveOutcome> {
  const queries = useQueryClient();
  return async (body) => {
    try {
      const schedule = await saveSchedule(group, body);
      queries.setQueryData(scheduleKey(group), schedule);
      for (const queryKey of [SCHEDULES_KEY, STATUS_KEY, DECISIONS_KEY]) void queries.invalidateQueries({ queryKey });
      return { kind: 'saved', schedule };
    } catch (error) {
      if (error instanceof ApiFailure && error.code === 'ROUTE_NOT_FOUND') {
        const file = `config/modules/scaling/${group}.toml`;
        return {
          kind: 'no-route',
          file,
          toml: scheduleToml(group, body),
          text: `Not saved: this controller has no route that saves a schedule (PUT ${schedulePath(group)} answered ROUTE_NOT_FOUND). To apply the change, put the text below into ${file} on the controller, then run “scaling reload” in its console.`,
        };
      }
      const message = error instanceof ApiFailure ? error.message : '';
      return { kind: 'refused', text: refusalText(error, 'Not saved'), field: error instanceof ApiFailure && error.status === 400 ? fieldOf(message) : { rule: null, key: null } };
    }
  };
}

/**
 * One group's timetable (GET /api/scaling/schedules/{group}): the week grid, the rules as a
 * list, and the form that adds or changes a rule (opened from the grid, a rule's Edit or Add a
 * rule; the focus goes back where it came from when it closes, and what was saved is said here).
 * What is in force now comes from GET /api/scaling/status.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { UseQueryResult } from '@tanstack/preact-query';
import { NODE, WEEKDAYS, type GroupStatus, type Schedule } from './model';
import type { May } from './may';
import { RuleForm, type Editing } from './rule-form';
import { RulesTable } from './rules';
import { WeekGrid } from './week-grid';
import { boundsText, clockText, DAY_NAMES, localNow } from './week';
import { refusalText } from './words';

interface Props {
  group: string;
  schedule: UseQueryResult<Schedule>;
  status: GroupStatus | undefined;
  may: May;
  now: number;
}

export function Timetable({ group, schedule, status, may, now }: Props) {
  const [editing, setEditing] = useState<Editing | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const opener = useRef<HTMLElement | null>(null);
  const editable = may(NODE.manage);
  // Another group chosen: the form and what was said of a save were about the last one.
  useEffect(() => {
    setEditing(null);
    setSaved(null);
  }, [group]);

  const open = (next: Omit<Editing, 'nonce'>) => {
    opener.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setSaved(null);
    setEditing((last) => ({ ...next, nonce: (last?.nonce ?? 0) + 1 }));
  };
  const close = (message: string | null) => {
    setEditing(null);
    if (message) setSaved(message);
    const back = opener.current;
    opener.current = null;
    if (back?.isConnected) requestAnimationFrame(() => back.focus());
  };

  const s = schedule.data;
  const local = s ? localNow(now, s.timezone) : null;
  return (
    <section class="sc-card" aria-labelledby="sc-timetable-title">
      <div class="sc-head">
        <h2 id="sc-timetable-title">Timetable of {group}</h2>
        {s && editable && (
          <button type="button" onClick={() => open({ index: null, day: local?.day, hour: local ? Math.floor(local.minute / 60) : undefined })}>
            Add a rule
          </button>
        )}
      </div>
      {schedule.isPending && <p class="sc-muted">Loading…</p>}
      {schedule.isError && (
        <p role="alert" class="sc-error">
          {refusalText(schedule.error, `The timetable of ${group} could not be read`)}
        </p>
      )}
      {s && (
        <>
          <p class="sc-muted sc-summary">
            Times in <strong>{s.timezone}</strong>
            {local && (
              <>
                {' '}
                (now {DAY_NAMES[WEEKDAYS[local.day]!]} {clockText(local.minute)})
              </>
            )}
            . {s.rules.length === 0 ? 'No rule.' : `${s.rules.length} rule${s.rules.length === 1 ? '' : 's'}`}
            {s.rules.length > 0 && (s.enabled ? ', applied.' : ', not applied: the schedule is off (see Warm-up and prediction).')}
            {status?.activeRule && (
              <>
                {' '}
                <span class="sc-in-force">
                  {status.activeRule.isWarmup ? 'Warming up for' : 'In force now:'} {status.activeRule.name} ({boundsText(status.activeRule)}).
                </span>
              </>
            )}
          </p>
          {!editable && <p class="sc-muted">Your account may not change schedules: that needs the permission {NODE.manage}.</p>}
          <WeekGrid schedule={s} now={now} editable={editable} onActivate={(day, hour, rule) => open(rule === null ? { index: null, day, hour } : { index: rule })} />
          <ul class="sc-legend" aria-label="Legend">
            <li>
              <span class="sc-swatch sc-c0" aria-hidden="true" /> a rule in force (colour by rule, as in the list)
            </li>
            {s.warmup.enabled && s.warmup.leadTimeMinutes > 0 && (
              <li>
                <span class="sc-swatch sc-c0 sc-warm" aria-hidden="true" /> its warm-up, {s.warmup.leadTimeMinutes} min ahead
              </li>
            )}
            <li>
              <span class="sc-swatch sc-now-swatch" aria-hidden="true" /> now
            </li>
          </ul>
          {saved && (
            <p role="status" class="sc-ok">
              {saved}
            </p>
          )}
          {editing && editable && <RuleForm schedule={s} editing={editing} onClose={close} />}
          <RulesTable group={s.group} rules={s.rules} editable={editable} onEdit={(index) => open({ index })} />
        </>
      )}
    </section>
  );
}

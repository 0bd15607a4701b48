/**
 * A group's timetable on a week: seven day columns of 24 hours in the schedule's zone, each rule
 * a coloured block over the hours it covers (side by side where rules overlap), its warm-up a
 * hatched strip ahead of it, and a line at the time now. The blocks are drawn for the eye; the
 * hour cells carry the same in words (what covers each, partly or wholly) and take the keyboard:
 * the arrow keys move by hour and day, Page Up and Down by six hours, Home and End to the week's
 * ends, Enter or Space edits the rule in force there (the one with the highest minimum) or adds a
 * rule at an empty hour. On a phone the grid scrolls sideways inside its own box.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { WEEKDAYS, type Schedule } from './model';
import { cellText, clockText, DAY_MINUTES, DAY_NAMES, DAY_SHORT, localNow, place, ruleAt, weekSegments, type Placed } from './week';

interface Props {
  schedule: Schedule;
  now: number;
  editable: boolean;
  /** Enter on a cell, or a click: the rule there (by index) or a new one at that hour. */
  onActivate: (day: number, hour: number, rule: number | null) => void;
}

const HOURS = Array.from({ length: 24 }, (_, h) => h);

export function WeekGrid({ schedule, now, editable, onActivate }: Props) {
  const grid = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const lead = schedule.warmup.enabled && schedule.warmup.leadTimeMinutes > 0 ? schedule.warmup.leadTimeMinutes : null;
  const segments = weekSegments(schedule.rules, lead);
  const placed = place(segments);
  const local = localNow(now, schedule.timezone);
  const [focus, setFocus] = useState(() => ({ day: local?.day ?? 0, hour: local ? Math.floor(local.minute / 60) : 0 }));
  // Where the grid scrolls inside its box (a phone), today's column is brought into view first.
  useEffect(() => {
    const outer = box.current;
    const today = grid.current?.querySelector<HTMLElement>('[role="columnheader"][aria-current="date"]');
    const label = grid.current?.querySelector<HTMLElement>('.sc-corner');
    if (!outer || !today || !label || outer.scrollWidth <= outer.clientWidth) return;
    outer.scrollLeft = Math.max(0, today.offsetLeft - label.offsetWidth - today.offsetWidth / 2);
  }, [schedule.group]);

  // Every cell is always there: the one moved to takes the focus at once (its onFocus moves the roving stop).
  const moveTo = (day: number, hour: number) => {
    const to = { day: Math.min(6, Math.max(0, day)), hour: Math.min(23, Math.max(0, hour)) };
    setFocus(to);
    grid.current?.querySelector<HTMLElement>(`[data-day="${to.day}"][data-hour="${to.hour}"]`)?.focus();
  };
  const activate = (day: number, hour: number) => onActivate(day, hour, ruleAt(day, hour, schedule.rules, segments));

  const onKeyDown = (event: KeyboardEvent) => {
    const { day, hour } = focus;
    const keys: Record<string, () => void> = {
      ArrowRight: () => moveTo(day + 1, hour),
      ArrowLeft: () => moveTo(day - 1, hour),
      ArrowDown: () => moveTo(day, hour + 1),
      ArrowUp: () => moveTo(day, hour - 1),
      PageDown: () => moveTo(day, hour + 6),
      PageUp: () => moveTo(day, hour - 6),
      Home: () => (event.ctrlKey ? moveTo(0, 0) : moveTo(0, hour)),
      End: () => (event.ctrlKey ? moveTo(6, 23) : moveTo(6, hour)),
      ...(editable ? { Enter: () => activate(day, hour), ' ': () => activate(day, hour) } : {}),
    };
    const action = keys[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  };

  const describe = editable
    ? 'Arrow keys move by hour and day, Page Up and Page Down by six hours, Home and End to the first and last day. Enter edits the rule in force at that hour, or adds a rule at an empty hour.'
    : 'Arrow keys move by hour and day, Page Up and Page Down by six hours, Home and End to the first and last day.';

  return (
    <div class="sc-week-box" ref={box}>
      <p id="sc-week-keys" class="sc-hidden">
        {describe}
      </p>
      <div
        ref={grid}
        class="sc-week"
        role="grid"
        aria-label={`Week of ${schedule.group}: rules by day and hour, times in ${schedule.timezone}`}
        aria-describedby="sc-week-keys"
        aria-readonly={!editable}
        aria-rowcount={25}
        aria-colcount={8}
        onKeyDown={onKeyDown}
      >
        <div role="row" class="sc-week-row sc-week-head" aria-rowindex={1}>
          <span role="columnheader" class="sc-corner">
            <span class="sc-hidden">Hour</span>
          </span>
          {WEEKDAYS.map((d, i) => (
            <span key={d} role="columnheader" class={local?.day === i ? 'sc-today' : undefined} aria-current={local?.day === i ? 'date' : undefined}>
              <span aria-hidden="true">{DAY_SHORT[d]}</span>
              <span class="sc-hidden">{DAY_NAMES[d]}</span>
            </span>
          ))}
        </div>
        {HOURS.map((hour) => (
          <div key={hour} role="row" class="sc-week-row" aria-rowindex={hour + 2}>
            <span role="rowheader" class="sc-hour">
              {clockText(hour * 60)}
            </span>
            {WEEKDAYS.map((d, day) => {
              const here = focus.day === day && focus.hour === hour;
              return (
                <div
                  key={d}
                  role="gridcell"
                  class={`sc-cell${hour % 6 === 0 ? ' sc-cell-quarter' : ''}`}
                  tabIndex={here ? 0 : -1}
                  data-day={day}
                  data-hour={hour}
                  onFocus={() => !here && setFocus({ day, hour })}
                  onClick={() => {
                    // A click focuses the cell itself; the roving stop follows it.
                    setFocus({ day, hour });
                    if (editable) activate(day, hour);
                  }}
                >
                  <span class="sc-hidden">{cellText(day, hour, schedule.rules, segments)}</span>
                </div>
              );
            })}
          </div>
        ))}
        <div class="sc-week-layer" aria-hidden="true">
          {WEEKDAYS.map((d, day) => (
            <div key={d} class="sc-week-day">
              {placed
                .filter((p) => p.day === day)
                .map((p) => (
                  <Block key={`${p.kind}-${p.rule}-${p.start}`} p={p} schedule={schedule} editable={editable} onEdit={() => onActivate(day, Math.floor(p.start / 60), p.rule)} />
                ))}
              {local?.day === day && <div class="sc-now" style={{ top: `${(local.minute / DAY_MINUTES) * 100}%` }} title={`Now: ${clockText(local.minute)}`} />}
            </div>
          ))}
        </div>
      </div>
    </div>
  );
}

function Block({ p, schedule, editable, onEdit }: { p: Placed; schedule: Schedule; editable: boolean; onEdit: () => void }) {
  const rule = schedule.rules[p.rule]!;
  const style = {
    top: `${(p.start / DAY_MINUTES) * 100}%`,
    height: `${((p.end - p.start) / DAY_MINUTES) * 100}%`,
    left: `${(p.lane / p.lanes) * 100}%`,
    width: `${100 / p.lanes}%`,
  };
  const tall = p.end - p.start >= 50;
  const label = p.kind === 'rule' ? `${rule.name}: ${clockText(p.start)}–${clockText(p.end)}, min ${rule.minInstances}${rule.maxInstances === null ? '' : `, max ${rule.maxInstances}`}` : `Warm-up for ${rule.name}`;
  return (
    <div class={`sc-block sc-c${p.rule % 8}${p.kind === 'warmup' ? ' sc-warm' : ''}${editable ? ' sc-editable' : ''}`} style={style} title={label} data-rule={rule.name} data-kind={p.kind} onClick={editable ? onEdit : undefined}>
      {p.kind === 'rule' && tall && (
        <>
          <span class="sc-block-name">{rule.name}</span>
          <span class="sc-block-bounds">
            ≥{rule.minInstances}
            {rule.maxInstances === null ? '' : ` ≤${rule.maxInstances}`}
          </span>
        </>
      )}
    </div>
  );
}

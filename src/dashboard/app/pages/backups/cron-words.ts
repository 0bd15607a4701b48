/**
 * A schedule's cron expression in words, for the common shapes ("every hour at :00", "every day
 * at 03:00", "Sundays at 04:00", "every 15 minutes"); null for anything else (the expression is
 * shown as it is). And a first look at an expression as it is typed: five fields of the
 * characters cron reads. The controller has the last word (src/core/time/cron-adapter.ts): its
 * refusal names the field.
 */
const DAYS = ['Sundays', 'Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

const num = (text: string): number | null => (/^\d{1,2}$/.test(text) ? Number(text) : null);
const pad = (n: number) => String(n).padStart(2, '0');

function list(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/** "Sundays", "Mondays and Fridays", "Mondays to Fridays"; null when not plain numbers. */
function weekdays(field: string): string | null {
  const range = /^(\d)-(\d)$/.exec(field);
  if (range) {
    const from = Number(range[1]) % 7;
    const to = Number(range[2]) % 7;
    if (Number(range[1]) > 7 || Number(range[2]) > 7) return null;
    return `${DAYS[from]} to ${DAYS[to]}`;
  }
  const parts = field.split(',');
  if (!parts.every((p) => /^[0-7]$/.test(p))) return null;
  return list(parts.map((p) => DAYS[Number(p) % 7] as string));
}

export function cronWords(expression: string): string | null {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) return null;
  const [minute, hour, day, month, weekday] = fields as [string, string, string, string, string];
  const everyMinutes = /^\*\/(\d{1,2})$/.exec(minute);
  if (everyMinutes && hour === '*' && day === '*' && month === '*' && weekday === '*') return `every ${everyMinutes[1]} minutes`;
  const m = num(minute);
  if (m === null || m > 59) return null;
  if (hour === '*' && day === '*' && month === '*' && weekday === '*') return `every hour at :${pad(m)}`;
  const everyHours = /^\*\/(\d{1,2})$/.exec(hour);
  if (everyHours && day === '*' && month === '*' && weekday === '*') return `every ${everyHours[1]} hours at :${pad(m)}`;
  const h = num(hour);
  if (h === null || h > 23) return null;
  const at = `at ${pad(h)}:${pad(m)}`;
  if (month !== '*') {
    const mo = num(month);
    const d = num(day);
    if (mo === null || mo < 1 || mo > 12 || d === null || weekday !== '*') return null;
    return `every year on ${MONTHS[mo - 1]} ${d} ${at}`;
  }
  if (day === '*' && weekday === '*') return `every day ${at}`;
  if (day === '*') {
    const days = weekdays(weekday);
    return days === null ? null : `${days} ${at}`;
  }
  const d = num(day);
  if (d !== null && d >= 1 && d <= 31 && weekday === '*') return `on day ${d} of every month ${at}`;
  return null;
}

/** Why an expression cannot be a schedule's, at a first look; null when it may be (the controller checks the rest). */
export function cronProblem(expression: string): string | null {
  const text = expression.trim();
  if (text === '') return 'A schedule needs a cron expression: minute hour day-of-month month day-of-week, like 0 3 * * *.';
  if (text.startsWith('@')) return 'Shortcuts like @daily are not read: write the five fields (0 0 * * * for every day at midnight).';
  const fields = text.split(/\s+/);
  if (fields.length !== 5) return `Five fields (minute hour day-of-month month day-of-week), not ${fields.length}${fields.length === 6 ? ': seconds are not read' : ''}.`;
  const bad = fields.findIndex((f) => !/^[0-9*,/-]+$/.test(f));
  if (bad >= 0) return `The ${['minute', 'hour', 'day-of-month', 'month', 'day-of-week'][bad]} field “${fields[bad]}” holds something cron does not read: numbers, *, ranges (1-5), lists (1,3) and steps (*/15) only.`;
  return null;
}

/**
 * A group's smart scaling file (config/modules/scaling/<Group>.toml) with a schedule's settings,
 * in the keys the module reads (src/modules/scaling/config.ts): what the page hands the operator
 * when the controller cannot save a schedule itself. Strings are TOML basic strings (JSON's
 * escapes are TOML's too).
 */
import type { ScheduleBody } from './model';

const text = (value: string) => JSON.stringify(value);

export function scheduleToml(group: string, schedule: ScheduleBody): string {
  const lines = [
    `# Smart scaling of group ${text(group)}, written from the dashboard's Scaling page.`,
    '# Apply it with `scaling reload` on the controller.',
    '',
    '[schedule]',
    `enabled = ${schedule.enabled}`,
    `timezone = ${text(schedule.timezone)}`,
  ];
  for (const rule of schedule.rules) {
    lines.push(
      '',
      '[[schedule.rules]]',
      `name = ${text(rule.name)}`,
      `days = [${rule.days.map((d) => text(d.slice(0, 3))).join(', ')}]`,
      `from = ${text(rule.from)}`,
      `to = ${text(rule.to)}`,
      `min_instances = ${rule.minInstances}`,
    );
    if (rule.maxInstances !== null) lines.push(`max_instances = ${rule.maxInstances}`);
  }
  lines.push(
    '',
    '[warmup]',
    `enabled = ${schedule.warmup.enabled}`,
    `lead_time_minutes = ${schedule.warmup.leadTimeMinutes}`,
    '',
    '[prediction]',
    `enabled = ${schedule.prediction.enabled}`,
    `percentile = ${schedule.prediction.percentile}`,
    '',
  );
  return lines.join('\n');
}

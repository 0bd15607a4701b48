/**
 * A message template as the player will read it: placeholders filled the way the module fills
 * them (src/modules/punishments/messages.ts renderMessage), `&` colour and style codes drawn as
 * coloured text on a dark, game-like panel, one line per `\n`. Never HTML from the text: every
 * run is a text node.
 */
import type { MessageKey } from './model';

export interface MessageValues {
  type: string;
  target: string;
  issuer: string;
  reason: string;
  /** Epoch ms of the end; null when permanent. */
  expiresAt: number | null;
  now: number;
}

/** The template a punishment is shown with: a ban or mute with an end reads like its temporary kind (the module's templateKeyOf). */
export function templateKeyOf(type: string, temporary: boolean): MessageKey {
  if (type === 'BAN' && temporary) return 'tempban';
  if (type === 'MUTE' && temporary) return 'tempmute';
  return type.toLowerCase() as MessageKey;
}

/** Time left as the module writes it for players: `7d 12h 5m`, `30s`, `permanent`. */
function remaining(ms: number | null): string {
  if (ms === null) return 'permanent';
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.ceil(ms / 60_000);
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  const rest = minutes % 60;
  return [days > 0 ? `${days}d` : '', hours > 0 ? `${hours}h` : '', rest > 0 ? `${rest}m` : ''].filter(Boolean).join(' ');
}

/** The template with its placeholders filled; `&` codes stay (drawn by McText). */
export function fillTemplate(text: string, v: MessageValues): string {
  const left = remaining(v.expiresAt === null ? null : v.expiresAt - v.now);
  const values: Record<string, string> = {
    type: v.type.toLowerCase(),
    target: v.target,
    issuer: v.issuer,
    reason: v.reason.trim() === '' ? 'No reason given' : v.reason,
    duration: left,
    remaining: left,
    expires: v.expiresAt === null ? 'never' : new Date(v.expiresAt).toISOString(),
  };
  return text.replace(/\{(type|target|issuer|reason|duration|remaining|expires)\}/g, (_, key: string) => values[key]!);
}

/** The placeholders a template may use, with what each becomes. */
export const PLACEHOLDERS: readonly (readonly [string, string])[] = [
  ['{target}', 'the player’s name'],
  ['{issuer}', 'who issued it'],
  ['{reason}', 'the reason (“No reason given” when blank)'],
  ['{type}', 'the type, in lower case'],
  ['{remaining}', 'time left, like 7d 12h 5m, or permanent'],
  ['{duration}', 'the same as {remaining}'],
  ['{expires}', 'the end as an ISO date, or never'],
];

interface Run {
  text: string;
  colour: string | null;
  styles: string[];
}

/** Splits `&`-coded text into runs: a colour code resets the styles (as in the game), `&r` resets both. */
function runsOf(line: string): Run[] {
  const runs: Run[] = [];
  let colour: string | null = null;
  let styles: string[] = [];
  let text = '';
  const flush = () => {
    if (text !== '') runs.push({ text, colour, styles: [...styles] });
    text = '';
  };
  for (let i = 0; i < line.length; i++) {
    const code = line[i + 1]?.toLowerCase();
    if ((line[i] === '&' || line[i] === '§') && code !== undefined && /[0-9a-fk-or]/.test(code)) {
      flush();
      if (/[0-9a-f]/.test(code)) {
        colour = code;
        styles = [];
      } else if (code === 'r') {
        colour = null;
        styles = [];
      } else if (!styles.includes(code)) styles.push(code);
      i++;
      continue;
    }
    text += line[i];
  }
  flush();
  return runs;
}

/** Text with `&` codes, drawn: each line a block, each run a span with its colour and styles. */
export function McText({ text, label }: { text: string; label: string }) {
  const lines = text.split('\n');
  return (
    <div class="pn-mc" role="group" aria-label={label}>
      {lines.map((line, i) => (
        <div key={i} class="pn-mc-line">
          {runsOf(line).map((run, j) => (
            <span key={j} class={[run.colour === null ? '' : `pn-c${run.colour}`, ...run.styles.map((s) => `pn-s${s}`)].filter(Boolean).join(' ') || undefined}>
              {run.text}
            </span>
          ))}
          {line === '' && '\u00a0'}
        </div>
      ))}
    </div>
  );
}

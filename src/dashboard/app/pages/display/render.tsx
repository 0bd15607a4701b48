/**
 * A display's text as players see it. Placeholders are filled the way the display plugin fills
 * them on the server (a plain replace of every `{name}`, `{target}`, `{players}`,
 * `{max_players}`, `{servers}`, then `{state}` with the state's label), then `&` (or `§`) colour
 * and style codes are drawn as the game draws them: a colour resets the styles, `&r` resets
 * both. The controller renders none of this itself (it serves the templates and the state
 * labels), so this is the page's own rendering, held to the plugin's rules. Never HTML from
 * the text: every run is a text node.
 */
import type { Display } from './model';

export interface Sample {
  /** {name} and {target}: the group's name on signs and NPCs, a server's in the picker's items. */
  name: string;
  players: number;
  maxPlayers: number;
  servers: number;
  /** The label the state shows as ({state}). */
  label: string;
}

export function fill(text: string, s: Sample): string {
  return text
    .replaceAll('{name}', s.name)
    .replaceAll('{target}', s.name)
    .replaceAll('{players}', String(s.players))
    .replaceAll('{max_players}', String(s.maxPlayers))
    .replaceAll('{servers}', String(s.servers))
    .replaceAll('{state}', s.label);
}

/** The label a display gives a state: its entry in `states`, else the state itself (the module's and the plugin's rule). */
export function labelOf(states: Record<string, string> | [string, string][], state: string): string {
  const entries = Array.isArray(states) ? states : Object.entries(states);
  return entries.find(([key]) => key === state)?.[1] ?? state;
}

/** The item a label shows in the picker: its entry in `npc.statusItems`, else GRAY_WOOL (the plugin's fallback). */
export function statusItemOf(items: [string, string][], label: string): string {
  return items.find(([key]) => key === label)?.[1] ?? 'GRAY_WOOL';
}

interface Run {
  text: string;
  colour: string | null;
  styles: string[];
}

const CODE = /[0-9a-fk-or]/;

/** Splits coded text into runs. */
export function runsOf(line: string): Run[] {
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
    if ((line[i] === '&' || line[i] === '§') && code !== undefined && CODE.test(code)) {
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

/** The text without its codes: what a screen reader and a test read. */
export function plain(line: string): string {
  return runsOf(line)
    .map((r) => r.text)
    .join('');
}

/** One line of coded text, drawn; an empty line keeps its height. */
export function McLine({ text, class: extra, line }: { text: string; class?: string; line?: number }) {
  const runs = runsOf(text);
  return (
    <div class={extra ? `dp-mc-line ${extra}` : 'dp-mc-line'} data-line={line}>
      {runs.map((run, j) => (
        <span key={j} class={[run.colour === null ? '' : `dp-c${run.colour}`, ...run.styles.map((s) => `dp-s${s}`)].filter(Boolean).join(' ') || undefined}>
          {run.text}
        </span>
      ))}
      {runs.length === 0 && '\u00a0'}
    </div>
  );
}

/** The four lines a sign shows, filled (line 4 by whether a server of the group can be joined). */
export function signLines(display: Pick<Display, 'sign'>, sample: Sample, joinable: boolean): string[] {
  const { sign } = display;
  return [sign.line1, sign.line2, sign.line3, joinable ? sign.line4Online : sign.line4Offline].map((line) => fill(line, sample));
}

/** A sign drawn on its board. */
export function SignBoard({ lines, label }: { lines: string[]; label: string }) {
  return (
    <div class="dp-sign" role="group" aria-label={label}>
      {lines.map((line, i) => (
        <McLine key={i} text={line} line={i + 1} />
      ))}
    </div>
  );
}

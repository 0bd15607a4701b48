import type { OutputKind, OutputLine } from '../core/commands/command';
import type { ConsoleEvent } from './transport';

/**
 * Escape sequences (CSI, OSC/DCS/APC-style strings, two-byte ESC forms), then any single C0
 * control but tab, DEL and the C1 range (some terminals act on a bare 0x9b as CSI).
 */
const CONTROL = /\x1b\[[0-?]*[ -/]*[@-~]?|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[ -~]?|[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;

/**
 * Text from the network made safe to print: whole escape sequences and every control
 * character except tab are removed, so a remote line cannot move the cursor, recolour or
 * repaint the operator's terminal. A line stays one line (newlines and `\r` go too).
 */
export function stripControl(text: string): string {
  return text.replace(CONTROL, '');
}

const paint = (colored: boolean, code: string, text: string) => (colored ? `\x1b[${code}m${text}\x1b[0m` : text);

/** Prefix and SGR colour by kind; the prefixes stay without colour so a plain log reads the same. */
const STYLES: Record<OutputKind, { prefix: string; code: string }> = {
  header: { prefix: '', code: '1;36' },
  info: { prefix: '', code: '94' },
  success: { prefix: '✓ ', code: '32' },
  error: { prefix: '✗ ', code: '31' },
  item: { prefix: '  • ', code: '' },
  text: { prefix: '', code: '' },
};

/** One printable line for a command's output line; no ANSI escapes at all unless `colored`. */
export function renderLine(line: OutputLine, colored: boolean): string {
  // A remote controller may send a kind this build does not know: it prints as text.
  const { prefix, code } = STYLES[line.kind] ?? STYLES.text;
  const text = `${prefix}${stripControl(line.text)}`;
  return code ? paint(colored, code, text) : text;
}

/**
 * `12:00:01 SERVICE_READY service=lobby-1 group=lobby`. The time is UTC, like the controller's
 * log lines the events are printed between. A value with spaces (or none) is quoted.
 */
export function renderEvent(event: ConsoleEvent, colored: boolean, now: Date = new Date()): string {
  const time = paint(colored, '90', now.toISOString().slice(11, 19));
  const type = paint(colored, '35', stripControl(event.type));
  const fields = Object.entries(event.data).map(([key, raw]) => {
    const value = stripControl(String(raw));
    return ` ${stripControl(key)}=${value === '' || /\s/.test(value) ? JSON.stringify(value) : value}`;
  });
  return `${time} ${type}${fields.join('')}`;
}

/**
 * The display module's value rules (src/modules/display/rules.ts and model.ts), read here as
 * the operator types so a value the controller will refuse is said before it is sent. The
 * page still sends it when asked: the controller decides, and its refusal is shown at the
 * field in its own words. Pure code.
 */
export const TEXT_MAX = 256;
export const LORE_MAX_LINES = 32;
export const ITEM_PATTERN = '^[A-Za-z0-9_:.-]{1,64}$';
export const KEY_PATTERN = '^[A-Za-z0-9_-]{1,64}$';

const ITEM = new RegExp(ITEM_PATTERN);
const KEY = new RegExp(KEY_PATTERN);

/** A text value's problem, completing "<field> …", or null. */
export function textProblem(value: string): string | null {
  if (/[\r\n]/.test(value)) return 'must be one line (no line breaks)';
  const length = [...value].length;
  if (length > TEXT_MAX) return `must be at most ${TEXT_MAX} characters, got ${length}`;
  return null;
}

export function itemProblem(value: string): string | null {
  return ITEM.test(value) ? null : `must be an item name matching ${ITEM_PATTERN} (letters, digits and _ : . -, no spaces)`;
}

export function keyProblem(key: string): string | null {
  return KEY.test(key) ? null : `must match ${KEY_PATTERN} (letters, digits, _ and -, no spaces)`;
}

export function loreProblem(lines: readonly string[]): string | null {
  if (lines.length > LORE_MAX_LINES) return `must have at most ${LORE_MAX_LINES} lines, got ${lines.length}`;
  for (const [i, line] of lines.entries()) {
    const problem = textProblem(line);
    if (problem) return `line ${i + 1} ${problem}`;
  }
  return null;
}

/** The lore box's text as lines (one per line of the box; an empty box is no lore) and back. */
export const loreLines = (text: string): string[] => (text === '' ? [] : text.split(/\r?\n/));
export const loreText = (lines: readonly string[]): string => lines.join('\n');

/**
 * The accessible copy of a terminal's output: the newest lines as plain text in a list inside
 * the role="log" region (xterm's own rows are drawn for the eye and hidden from assistive
 * technology). Bounded: a flood keeps only the last MIRROR_LINES, and each batch costs one
 * DOM insertion.
 */
import { plainText } from './ansi';

export const MIRROR_LINES = 200;

export function appendToMirror(list: HTMLElement, lines: readonly string[]): void {
  const fresh = lines.length > MIRROR_LINES ? lines.slice(-MIRROR_LINES) : lines;
  const items = document.createDocumentFragment();
  for (const line of fresh) {
    const item = document.createElement('li');
    item.textContent = plainText(line);
    items.appendChild(item);
  }
  list.appendChild(items);
  let extra = list.childElementCount - MIRROR_LINES;
  while (extra-- > 0) list.firstElementChild?.remove();
}

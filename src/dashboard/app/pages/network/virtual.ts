/**
 * The player lists' rows (../../virtual-rows.ts): only the rows in and near the scrolled box are
 * rendered, so 1,000 online players cost what a screenful does. Every row has the same height
 * at a given width (network.css sets it: one line on a wide screen, a two-line card below
 * 640 px), followed here as the window changes.
 */
import { useEffect, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import type { Virtualizer } from '@tanstack/virtual-core';
import { useVirtualRows as useSharedVirtualRows } from '../../virtual-rows';

/** A row's height in px (network.css gives .nw-row these heights). */
export const ROW_HEIGHT = { wide: 48, narrow: 76 } as const;
const NARROW = '(max-width: 640px)';

/** The row height at the page's current width, following the window when it changes. */
function useRowHeight(): number {
  const [narrow, setNarrow] = useState(() => matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const changed = () => setNarrow(query.matches);
    query.addEventListener('change', changed);
    changed();
    return () => query.removeEventListener('change', changed);
  }, []);
  return narrow ? ROW_HEIGHT.narrow : ROW_HEIGHT.wide;
}

export function useVirtualRows(count: number, scroller: RefObject<HTMLElement>): { virtualizer: Virtualizer<HTMLElement, HTMLElement>; rowHeight: number } {
  const rowHeight = useRowHeight();
  return { virtualizer: useSharedVirtualRows(count, scroller, rowHeight), rowHeight };
}

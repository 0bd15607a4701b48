/**
 * TanStack Virtual (virtual-core, as the Files page uses it) for the player lists: only the rows
 * in and near the scrolled box are rendered, so 1,000 online players cost what a screenful does.
 * Every row has the same height at a given width (network.css sets it: one line on a wide
 * screen, a two-line card below 640 px), so nothing is measured.
 */
import { useEffect, useLayoutEffect, useReducer, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer, type VirtualizerOptions } from '@tanstack/virtual-core';

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
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const rowHeight = useRowHeight();
  const options: VirtualizerOptions<HTMLElement, HTMLElement> = {
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 10,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    onChange: () => rerender(undefined),
  };
  const [virtualizer] = useState(() => new Virtualizer(options));
  virtualizer.setOptions(options);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());
  // Another width, another row height: every offset is computed again.
  useLayoutEffect(() => virtualizer.measure(), [virtualizer, rowHeight]);
  return { virtualizer, rowHeight };
}

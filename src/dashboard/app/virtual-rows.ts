/**
 * TanStack Virtual (virtual-core) for Preact: only the rows in and near the scrolled box are
 * rendered, so a list of many thousand rows costs what a screenful does. Every row of a list
 * has the same height (the page's CSS gives its rows `rowHeight` px; a list may change it with
 * the width), so nothing is measured, and rows are keyed by the caller, not by the
 * virtualizer's index keys. Used by Files, the Timeline and the player lists.
 */
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer, type VirtualizerOptions } from '@tanstack/virtual-core';

export function useVirtualRows(count: number, scroller: RefObject<HTMLElement>, rowHeight: number): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const options: VirtualizerOptions<HTMLElement, HTMLElement> = {
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => rowHeight,
    overscan: 8,
    scrollToFn: elementScroll,
    observeElementRect,
    observeElementOffset,
    onChange: () => rerender(undefined),
  };
  const [virtualizer] = useState(() => new Virtualizer(options));
  virtualizer.setOptions(options);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());
  // Another row height (a list whose rows are taller on a phone): every offset is computed again.
  useLayoutEffect(() => virtualizer.measure(), [virtualizer, rowHeight]);
  return virtualizer;
}

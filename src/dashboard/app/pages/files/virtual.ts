/**
 * TanStack Virtual (virtual-core) for Preact: only the rows in and near the scrolled box are
 * rendered, so a folder of many thousand entries costs what a screenful does. Every row has
 * the same height (the page's CSS sets it to ROW_HEIGHT), so nothing is measured, and rows
 * are keyed by the caller (by path), not by the virtualizer's index keys.
 */
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';
import type { RefObject } from 'preact';
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer, type VirtualizerOptions } from '@tanstack/virtual-core';

/** One row's height in px, at every width (files.css gives .fm-row this height). */
export const ROW_HEIGHT = 52;

export function useVirtualRows(count: number, scroller: RefObject<HTMLElement>): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const options: VirtualizerOptions<HTMLElement, HTMLElement> = {
    count,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
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
  return virtualizer;
}

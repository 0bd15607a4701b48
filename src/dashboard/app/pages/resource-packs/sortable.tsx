/**
 * An ordered list whose rows are dragged into a new order by their grip, with a mouse, a pen
 * or a finger (pointer events, so touch screens work too; the page does not scroll while a grip
 * is held). The rows move as the grip is dragged; letting go asks `onMove(from, to)`, Escape
 * puts them back. The grip is for pointers only: each row's own buttons (Move up, Move down)
 * are the way with a keyboard or a screen reader.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { moved } from './order';

export interface SortableItem {
  key: number;
}

interface Props<T extends SortableItem> {
  items: readonly T[];
  /** While true, nothing can be dragged (a change is being saved). */
  disabled: boolean;
  label: string;
  onMove: (from: number, to: number) => void;
  row: (item: T, index: number, dragging: boolean) => ComponentChildren;
}

interface Drag {
  from: number;
  over: number;
  pointer: number;
}

export function Sortable<T extends SortableItem>({ items, disabled, label, onMove, row }: Props<T>) {
  const list = useRef<HTMLOListElement>(null);
  const [drag, setDrag] = useState<Drag | null>(null);
  const current = useRef<Drag | null>(null);
  /** Where each row was (in page coordinates) when the drag began: the rows move meanwhile. */
  const spans = useRef<{ top: number; bottom: number }[]>([]);
  const move = useRef(onMove);
  move.current = onMove;

  const update = (next: Drag | null) => {
    current.current = next;
    setDrag(next);
  };

  const indexAt = (pageY: number): number => {
    const all = spans.current;
    if (all.length === 0) return 0;
    if (pageY < all[0]!.top) return 0;
    for (let i = 0; i < all.length; i++) if (pageY < all[i]!.bottom) return i;
    return all.length - 1;
  };

  useEffect(() => {
    if (drag === null) return;
    const moveTo = (event: PointerEvent) => {
      const now = current.current;
      if (!now || event.pointerId !== now.pointer) return;
      const over = indexAt(event.clientY + window.scrollY);
      if (over !== now.over) update({ ...now, over });
    };
    const drop = (event: PointerEvent) => {
      const now = current.current;
      if (!now || event.pointerId !== now.pointer) return;
      const over = event.type === 'pointercancel' ? now.from : indexAt(event.clientY + window.scrollY);
      update(null);
      if (over !== now.from) move.current(now.from, over);
    };
    const escape = (event: KeyboardEvent) => {
      if (event.key !== 'Escape') return;
      event.preventDefault();
      update(null);
    };
    window.addEventListener('pointermove', moveTo);
    window.addEventListener('pointerup', drop);
    window.addEventListener('pointercancel', drop);
    window.addEventListener('keydown', escape);
    return () => {
      window.removeEventListener('pointermove', moveTo);
      window.removeEventListener('pointerup', drop);
      window.removeEventListener('pointercancel', drop);
      window.removeEventListener('keydown', escape);
    };
  }, [drag !== null]);

  const grab = (index: number) => (event: PointerEvent) => {
    if (disabled || current.current || (event.pointerType === 'mouse' && event.button !== 0)) return;
    event.preventDefault();
    const rows = [...(list.current?.children ?? [])];
    spans.current = rows.map((li) => {
      const r = li.getBoundingClientRect();
      return { top: r.top + window.scrollY, bottom: r.bottom + window.scrollY };
    });
    update({ from: index, over: index, pointer: event.pointerId });
  };

  const shown = drag ? moved(items, drag.from, drag.over) : items;
  const dragged = drag ? items[drag.from]?.key : undefined;
  return (
    <ol ref={list} class={`rp-sortable${drag ? ' rp-sorting' : ''}`} aria-label={label}>
      {shown.map((item, index) => (
        <li key={item.key} data-pack={item.key} class={item.key === dragged ? 'rp-dragging' : undefined}>
          <span class="rp-grip" aria-hidden="true" title="Drag to change the order" data-disabled={disabled ? 'true' : undefined} onPointerDown={grab(items.indexOf(item))}>
            ⠿
          </span>
          {row(item, index, item.key === dragged)}
        </li>
      ))}
    </ol>
  );
}

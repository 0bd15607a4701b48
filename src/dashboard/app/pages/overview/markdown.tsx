/**
 * The changelog's markdown as elements, never as HTML: `#` headings, `-`/`*` list items (an
 * indented one nested under the item before, any other indented or lazy line continuing it),
 * paragraphs, and inline `code` and **bold**. Every piece of text is a text node, so nothing
 * the server sends can become markup.
 */
import type { ComponentChildren } from 'preact';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'list'; items: Item[] };
interface Item {
  text: string;
  children: Item[];
}

const HEADING = /^(#{1,6})\s+(.*)$/;
const LIST_ITEM = /^(\s*)[-*+]\s+(.*)$/;

/** The blocks of `markdown`, in order. */
export function parseBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  // Where a continuation line goes: the open paragraph or the last list item (nested or not).
  let paragraph: { kind: 'paragraph'; text: string } | null = null;
  let list: { kind: 'list'; items: Item[] } | null = null;
  let lastItem: Item | null = null;
  let blank = false;
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trimEnd();
    if (line.trim() === '') {
      paragraph = null;
      blank = true;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]!.trim() });
      paragraph = list = lastItem = null;
      blank = false;
      continue;
    }
    const item = LIST_ITEM.exec(line);
    if (item) {
      const nested = item[1]!.length >= 2 && list !== null && list.items.length > 0;
      const entry: Item = { text: item[2]!.trim(), children: [] };
      if (nested) list!.items[list!.items.length - 1]!.children.push(entry);
      else {
        if (!list) {
          list = { kind: 'list', items: [] };
          blocks.push(list);
        }
        list.items.push(entry);
      }
      lastItem = entry;
      paragraph = null;
      blank = false;
      continue;
    }
    const indented = /^\s/.test(line);
    // A line under a list item continues it when indented, or directly under it (markdown's lazy continuation).
    if (lastItem && (indented || !blank)) {
      lastItem.text += ` ${line.trim()}`;
      continue;
    }
    if (paragraph && !blank) {
      paragraph.text += ` ${line.trim()}`;
      continue;
    }
    paragraph = { kind: 'paragraph', text: line.trim() };
    blocks.push(paragraph);
    list = lastItem = null;
    blank = false;
  }
  return blocks;
}

/** `code` and **bold** (which may hold code) as elements; the rest as text. */
export function inline(text: string): ComponentChildren[] {
  const parts: ComponentChildren[] = [];
  const pattern = /`([^`]+)`|\*\*(.+?)\*\*/g;
  let at = 0;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    if (match.index > at) parts.push(text.slice(at, match.index));
    if (match[1] !== undefined) parts.push(<code>{match[1]}</code>);
    else parts.push(<strong>{inline(match[2]!)}</strong>);
    at = match.index + match[0].length;
  }
  if (at < text.length) parts.push(text.slice(at));
  return parts;
}

function Items({ items }: { items: Item[] }) {
  return (
    <ul>
      {items.map((item, i) => (
        <li key={i}>
          {inline(item.text)}
          {item.children.length > 0 && <Items items={item.children} />}
        </li>
      ))}
    </ul>
  );
}

/**
 * `markdown` rendered under a heading of level `under`: its headings keep their level (`###` is
 * an h4) but never rise to `under` or above it, so the page's outline stays whole.
 */
export function Markdown({ markdown, under }: { markdown: string; under: number }) {
  return (
    <>
      {parseBlocks(markdown).map((block, i) => {
        if (block.kind === 'list') return <Items key={i} items={block.items} />;
        if (block.kind === 'paragraph') return <p key={i}>{inline(block.text)}</p>;
        const level = Math.min(6, Math.max(under + 1, block.level + 1));
        const Tag = `h${level}` as 'h3' | 'h4' | 'h5' | 'h6';
        return <Tag key={i}>{inline(block.text)}</Tag>;
      })}
    </>
  );
}

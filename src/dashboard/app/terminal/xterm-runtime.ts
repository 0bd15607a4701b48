/**
 * The part of the terminal loaded when a console is first shown (a dynamic import of this
 * module): xterm.js with its fit and search add-ons, and its stylesheet, added as a `<link>` so
 * the first page's stylesheet does not carry it. Everything xterm-specific stays in this file.
 */
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { SearchAddon } from '@xterm/addon-search';
import xtermCss from '@xterm/xterm/css/xterm.css' with { type: 'file' };
import { cspSafeStyles, styleCellsByCssom } from './csp-styles';
import { loadStylesheet } from '../stylesheet';

export interface MountedTerminal {
  /** Writes terminal data; `done` runs once xterm has parsed it. */
  write(chunk: string, done: () => void): void;
  /** Finds the next (or previous) match in the whole scrollback; false when there is none. */
  find(term: string, backwards: boolean): boolean;
  clearSearch(): void;
  scrollToBottom(): void;
  dispose(): void;
}

/** Dark in both colour schemes, as terminals are; the 16 ANSI colours readable on it. */
const THEME = {
  background: '#14161a',
  foreground: '#e3e5e8',
  cursor: '#14161a',
  selectionBackground: '#3d5a8c',
  black: '#2e3138',
  red: '#ff6b6b',
  green: '#5fd38d',
  yellow: '#f0c75e',
  blue: '#6ea0ff',
  magenta: '#d291ff',
  cyan: '#5fd3d3',
  white: '#d0d3d8',
  brightBlack: '#7c818c',
  brightRed: '#ff8f8f',
  brightGreen: '#86e3ab',
  brightYellow: '#f7da8e',
  brightBlue: '#9bbdff',
  brightMagenta: '#e2b5ff',
  brightCyan: '#8ee6e6',
  brightWhite: '#ffffff',
};

export async function mountTerminal(container: HTMLElement, scrollback: number): Promise<MountedTerminal> {
  // A string unless another part of the app imports the file as CSS (then its rules are in the page's stylesheet).
  if (typeof xtermCss === 'string') await loadStylesheet(xtermCss);
  const styles = cspSafeStyles();
  const term = new Terminal({
    scrollback,
    convertEol: true,
    // Input goes through the Command field below the terminal, never into xterm.
    disableStdin: true,
    cursorInactiveStyle: 'none',
    cursorStyle: 'bar',
    fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace',
    fontSize: 13,
    theme: THEME,
    documentOverride: styles.document,
  });
  const fit = new FitAddon();
  const search = new SearchAddon();
  term.loadAddon(fit);
  term.loadAddon(search);
  styles.whileOpening(() => term.open(container));
  styleCellsByCssom(term);
  // The screen is aria-hidden (the page keeps an accessible copy of the lines): nothing in it may take focus.
  if (term.textarea) term.textarea.tabIndex = -1;
  fit.fit();
  const resize = new ResizeObserver(() => {
    // A hidden container (a closed tab) measures 0: fitting then would shrink the terminal to nothing.
    if (container.clientWidth > 0 && container.clientHeight > 0) fit.fit();
  });
  resize.observe(container);
  return {
    write: (chunk, done) => term.write(chunk, done),
    find: (text, backwards) => (backwards ? search.findPrevious(text) : search.findNext(text)),
    clearSearch: () => {
      search.clearDecorations();
      term.clearSelection();
    },
    scrollToBottom: () => term.scrollToBottom(),
    dispose: () => {
      resize.disconnect();
      term.dispose();
      styles.dispose();
    },
  };
}

/**
 * xterm.js puts the styles it computes (theme colours, cell sizes, the scrollbar) into `<style>`
 * elements it creates itself. The dashboard's CSP (style-src 'self': no inline styles) refuses
 * those: the browser reports a violation and the terminal renders without them. Here a `<style>`
 * xterm asks for is an inert stand-in (a `<template>`, never rendered) whose text goes into a
 * constructed stylesheet the document adopts: CSSOM, which the CSP does not restrict.
 *
 * xterm creates its elements through two documents: the one its `documentOverride` option
 * names (the renderer's), and the page's own `document` (xterm 6 ignores the override for its
 * "main document": the viewport's scrollbar style comes from there, during `open`). So the
 * stand-ins come from a proxy of the document passed as the override, and from the page's
 * document itself while `open` runs (`whileOpening`), which is synchronous: nothing else can
 * create an element meanwhile.
 */
export interface CspSafeStyles {
  /** The document to pass as xterm's `documentOverride`. */
  document: Document;
  /** Runs xterm's `open` with the page's document handing out stand-ins too. */
  whileOpening<T>(open: () => T): T;
  /** Drops every stylesheet the stand-ins adopted (when the terminal is disposed). */
  dispose(): void;
}

export function cspSafeStyles(real: Document = document): CspSafeStyles {
  const sheets = new Set<CSSStyleSheet>();
  const native = real.createElement.bind(real) as (tag: string, options?: ElementCreationOptions) => HTMLElement;
  const drop = (sheet: CSSStyleSheet) => {
    sheets.delete(sheet);
    real.adoptedStyleSheets = real.adoptedStyleSheets.filter((s) => s !== sheet);
  };

  const styleStandIn = (): HTMLElement => {
    const element = native('template');
    const sheet = new CSSStyleSheet();
    sheets.add(sheet);
    real.adoptedStyleSheets = [...real.adoptedStyleSheets, sheet];
    let text = '';
    // xterm only ever sets and reads textContent, appends the element and removes it.
    Object.defineProperty(element, 'textContent', {
      configurable: true,
      get: () => text,
      set: (value: unknown) => {
        text = value == null ? '' : String(value);
        sheet.replaceSync(text);
      },
    });
    const remove = element.remove.bind(element);
    element.remove = () => {
      drop(sheet);
      remove();
    };
    return element;
  };
  const createElement = (tag: string, options?: ElementCreationOptions) => (tag.toLowerCase() === 'style' ? styleStandIn() : native(tag, options));

  const proxy = new Proxy(real, {
    get(target, key) {
      if (key === 'createElement') return createElement;
      const value: unknown = Reflect.get(target, key, target);
      // Native methods need the real document as `this`, not the proxy.
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    document: proxy,
    whileOpening(open) {
      const own = Object.getOwnPropertyDescriptor(real, 'createElement');
      Object.defineProperty(real, 'createElement', { configurable: true, writable: true, value: createElement });
      try {
        return open();
      } finally {
        if (own) Object.defineProperty(real, 'createElement', own);
        else delete (real as { createElement?: unknown }).createElement;
      }
    },
    dispose() {
      for (const sheet of [...sheets]) drop(sheet);
    },
  };
}

/** The part of xterm's internals reached below (xterm 6.0, pinned in bun.lock). */
interface RowFactoryPath {
  _core?: { _renderService?: { _renderer?: { value?: { _rowFactory?: { _addStyle?: unknown } } } } };
}

/**
 * xterm's DOM renderer colours a cell (24-bit colours, selected text and search matches) with
 * `setAttribute('style', …)`, which the CSP refuses too (and the row factory that does it makes
 * its cells with the page's document, whatever the override says). Its one method that does so
 * is replaced on the terminal's renderer by one writing the same style through CSSOM
 * (`style.cssText`), which the CSP allows. Reached through xterm's internals: should a later
 * xterm move it, nothing breaks but the colours of those cells, and the browser tests report the
 * CSP violations again. Returns whether it was found.
 */
export function styleCellsByCssom(terminal: object): boolean {
  const factory = (terminal as RowFactoryPath)._core?._renderService?._renderer?.value?._rowFactory;
  if (!factory || typeof factory._addStyle !== 'function') return false;
  factory._addStyle = (element: HTMLElement, style: string) => {
    element.style.cssText = `${element.style.cssText}${style};`;
  };
  return true;
}

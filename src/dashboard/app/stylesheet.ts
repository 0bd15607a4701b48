/**
 * Adds a stylesheet by URL once (a `<link>` in the head: the page's CSP allows same-origin
 * stylesheets and no inline ones) and resolves when it has loaded, so a part that measures
 * itself (the terminal's character cells) measures with its styles applied. A sheet that fails
 * to load resolves too: the part works unstyled rather than not at all. A page's own sheet is
 * imported `with { type: 'file' }`, as its URL: a plain CSS import would be folded by the
 * bundler into the stylesheet every page loads first.
 */
const loading = new Map<string, Promise<void>>();

export function loadStylesheet(href: string): Promise<void> {
  let done = loading.get(href);
  if (!done) {
    done = new Promise<void>((resolve) => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      link.onload = () => resolve();
      link.onerror = () => resolve();
      document.head.appendChild(link);
    });
    loading.set(href, done);
  }
  return done;
}

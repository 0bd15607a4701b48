/**
 * Adds the page's stylesheet as a <link> (the CSP allows same-origin stylesheets, nothing
 * inline), once, resolving when it has loaded (or failed: the page then works unstyled rather
 * than not at all). The sheet is imported `with { type: 'file' }`, as its URL: a plain CSS
 * import would be folded by the bundler into the stylesheet every page loads first.
 */
const loading = new Map<string, Promise<void>>();

export function loadStylesheet(href: string): Promise<void> {
  let done = loading.get(href);
  if (!done) {
    done = new Promise<void>((resolve) => {
      const link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = href;
      link.onload = link.onerror = () => resolve();
      document.head.append(link);
    });
    loading.set(href, done);
  }
  return done;
}

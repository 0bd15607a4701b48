/**
 * What this controller offers, from the page's `<meta name="svc-features">` (src/dashboard/serve.ts):
 * the ids of the modules this run loaded (`auth` among them when its game-account sign-in is served).
 */
export function hasFeature(name: string): boolean {
  const content = document.querySelector('meta[name="svc-features"]')?.getAttribute('content') ?? '';
  return content.split(' ').includes(name);
}

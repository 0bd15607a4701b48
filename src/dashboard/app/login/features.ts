/** What this controller offers before sign-in, from the page's `<meta name="svc-features">` (src/dashboard/serve.ts). */
export function hasFeature(name: string): boolean {
  const content = document.querySelector('meta[name="svc-features"]')?.getAttribute('content') ?? '';
  return content.split(' ').includes(name);
}

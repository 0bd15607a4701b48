import type { DashboardFiles } from './types';

/**
 * What a browser may do with the dashboard's page: scripts, styles, images and connections
 * (the API, its WebSockets) of this origin only, nothing inline, never inside another site's
 * frame. The app needs nothing else: no CDN, no web font, no telemetry.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** An asset's name holds its content hash: a browser may keep it for a year without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The answer for a dashboard path: an asset under /assets/ (404 when there is none by that
 * name), else the app's page, which routes in the browser. Undefined for an unknown asset.
 */
export function dashboardAnswer(files: DashboardFiles, pathname: string, features: readonly string[] = []): Response | undefined {
  if (pathname.startsWith('/assets/')) {
    const asset = files.assets.get(pathname);
    if (!asset) return undefined;
    return new Response(asset.body, { headers: { 'content-type': asset.type, 'cache-control': IMMUTABLE, 'x-content-type-options': 'nosniff' } });
  }
  return new Response(pageWith(files, features), {
    headers: {
      'content-type': 'text/html;charset=utf-8',
      // The page names the current assets: always asked again, so an update is seen at once.
      'cache-control': 'no-cache',
      'content-security-policy': CONTENT_SECURITY_POLICY,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
    },
  });
}

/**
 * The first segment of every page path the app routes (src/dashboard/app/main.tsx; a test keeps
 * the two equal). Only these, `/` and `/assets/` are the dashboard's: any other path stays
 * ROUTE_NOT_FOUND, so a path that only resolves outside /api/ once its dot segments are applied
 * (`/api/files/x/../../../etc/passwd` is `/etc/passwd` to the router) is still the API's error.
 */
export const APP_PAGES: ReadonlySet<string> = new Set(['login', 'services', 'groups', 'dedicated', 'nodes', 'console', 'files', 'plugins', 'audit', 'doctor', 'performance', 'stress', 'settings', 'profile', 'network', 'timeline', 'players', 'permissions', 'punishments', 'backups', 'resource-packs', 'display', 'scaling']);

/** Paths the dashboard answers: `/`, its pages (and what is below them) and its assets. */
export function isDashboardPath(pathname: string): boolean {
  if (pathname === '/' || pathname.startsWith('/assets/')) return true;
  const first = pathname.slice(1).split('/', 1)[0]!;
  return APP_PAGES.has(first);
}

const pages = new WeakMap<DashboardFiles, Map<string, string>>();

/**
 * The app's page telling the app what this controller offers before anyone signs in (a
 * `<meta name="svc-features">`: the ids of the modules this run loaded, `auth` among them when
 * its game-account sign-in is served), so the login and the navigation show only what works. Worked out once per build of the files and set of features.
 */
function pageWith(files: DashboardFiles, features: readonly string[]): string {
  const content = features.filter((f) => /^[a-z-]+$/.test(f)).join(' ');
  let byFeatures = pages.get(files);
  if (!byFeatures) pages.set(files, (byFeatures = new Map()));
  let page = byFeatures.get(content);
  if (page === undefined) {
    page = files.index.replace('</head>', `<meta name="svc-features" content="${content}" /></head>`);
    byFeatures.set(content, page);
  }
  return page;
}

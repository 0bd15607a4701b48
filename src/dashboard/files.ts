import type { DashboardFiles, EmbeddedDashboard } from './types';

export type { DashboardFile, DashboardFiles } from './types';

let loading: Promise<DashboardFiles> | undefined;

/**
 * The dashboard's files, loaded at the first request for one (never at start): the copy
 * embedded in the executable, or, run from source, a build of src/dashboard/app/ (rebuilt after
 * a change there, for `bun start`).
 */
export function dashboardFiles(): Promise<DashboardFiles> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined; // a failed build is tried again at the next request
    throw error;
  });
  return loading;
}

async function load(): Promise<DashboardFiles> {
  let embedded: EmbeddedDashboard | undefined;
  try {
    embedded = (await import('svc:dashboard-files')) as EmbeddedDashboard;
  } catch {
    // Not a compiled executable: build from the source.
  }
  if (embedded) return { index: embedded.INDEX, assets: new Map(embedded.ASSETS.map((a) => [a.path, { body: Bun.file(a.file), type: a.type }])) };
  const [{ buildDashboard, APP_ENTRY }, { watch }, { dirname }] = await Promise.all([import('./bundle'), import('node:fs'), import('node:path')]);
  const built = await buildDashboard();
  const watcher = watch(dirname(APP_ENTRY), { recursive: true }, () => {
    watcher.close();
    loading = undefined;
  });
  watcher.unref();
  return built;
}

import { join } from 'node:path';
import type { DashboardFile, DashboardFiles } from './types';

/** The app's page: its scripts and styles are found from it. */
export const APP_ENTRY = join(import.meta.dir, 'app', 'index.html');

/**
 * The dashboard built from src/dashboard/app/ by Bun's bundler: index.html, and its scripts,
 * styles and the chunks loaded later under /assets/ with a content hash in each name (so they
 * may be cached for good). Used by build.ts, which embeds the files in the executable, and by a
 * controller run from source, which serves them from memory.
 */
export async function buildDashboard(): Promise<DashboardFiles> {
  const result = await Bun.build({
    entrypoints: [APP_ENTRY],
    target: 'browser',
    minify: true,
    splitting: true,
    naming: { entry: '[name].[ext]', chunk: 'assets/[name]-[hash].[ext]', asset: 'assets/[name]-[hash].[ext]' },
    publicPath: '/',
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  if (!result.success) throw new AggregateError(result.logs, `the dashboard did not build:\n${result.logs.map(String).join('\n')}`);
  let index: string | undefined;
  const assets = new Map<string, DashboardFile>();
  for (const output of result.outputs) {
    const path = output.path.replace(/^\.\//, '/');
    if (path === '/index.html') index = await output.text();
    else assets.set(path, { body: output, type: output.type });
  }
  if (index === undefined) throw new Error('the dashboard build wrote no index.html');
  return { index, assets };
}

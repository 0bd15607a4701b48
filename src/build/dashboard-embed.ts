import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildDashboard } from '../dashboard/bundle';

/**
 * The dashboard inside the executable: build.ts builds src/dashboard/app/, writes the files to
 * a temporary folder and hands the bundler this plugin, which answers the import of
 * `svc:dashboard-files` (src/dashboard/files.ts) with a module embedding each file
 * (`with { type: 'file' }`) and the page's text. `done()` removes the folder once compiled.
 */
export async function dashboardEmbedding(): Promise<{ plugin: Bun.BunPlugin; done(): void }> {
  const files = await buildDashboard();
  const dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-'));
  const lines: string[] = [];
  const assets: string[] = [];
  let n = 0;
  for (const [path, asset] of files.assets) {
    const onDisk = join(dir, path);
    mkdirSync(dirname(onDisk), { recursive: true });
    await Bun.write(onDisk, asset.body);
    lines.push(`import f${n} from ${JSON.stringify(onDisk)} with { type: 'file' };`);
    assets.push(`{ path: ${JSON.stringify(path)}, file: f${n}, type: ${JSON.stringify(asset.type)} }`);
    n++;
  }
  const source = `${lines.join('\n')}\nexport const INDEX = ${JSON.stringify(files.index)};\nexport const ASSETS = [${assets.join(', ')}];\n`;
  const plugin: Bun.BunPlugin = {
    name: 'svc-dashboard-files',
    setup(build) {
      build.onResolve({ filter: /^svc:dashboard-files$/ }, () => ({ path: 'svc:dashboard-files', namespace: 'svc-dashboard' }));
      build.onLoad({ filter: /.*/, namespace: 'svc-dashboard' }, () => ({ contents: source, loader: 'js' }));
    },
  };
  return { plugin, done: () => rmSync(dir, { recursive: true, force: true }) };
}

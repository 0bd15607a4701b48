import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A template shaped like a real Paper one, `count` files in all: most of them under
 * `libraries/` (jars, hardlink candidates), a tenth plugin configs (always copied).
 */
export function writeLargeTemplate(dir: string, count: number, bytesPerFile = 2048): { libraries: number; configs: number } {
  const configs = Math.floor(count / 10);
  const libraries = count - configs;
  const content = 'x'.repeat(bytesPerFile);
  const perDir = 100;
  for (let i = 0; i < libraries; i++) {
    const sub = join(dir, 'libraries', `group${Math.floor(i / perDir)}`);
    if (i % perDir === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `lib${i}.jar`), content);
  }
  for (let i = 0; i < configs; i++) {
    const sub = join(dir, 'plugins', `Plugin${Math.floor(i / perDir)}`);
    if (i % perDir === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `config${i}.yml`), content);
  }
  return { libraries, configs };
}

import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { currentDoc, END, renderRouteTable, START } from './support/route-table';

test('README lists every route and socket with its API level and the node a dashboard session needs', async () => {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = readme.slice(readme.indexOf(START), readme.indexOf(END) + END.length);
  // On a mismatch: bun test/support/route-table.ts --write
  expect(block).toBe(renderRouteTable(await currentDoc()));
});

import { afterEach, expect, test } from 'bun:test';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readControllerRuntime, removeControllerRuntime, writeControllerRuntime } from '../../../src/core/update/runtime-file';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function dataDir(): string {
  const temp = tempDir('svc-runtime-');
  cleanups.push(temp.remove);
  return temp.dir;
}

const FILE = 'controller.json';

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = Bun.spawn(['true']);
  await child.exited;
  return child.pid;
}

test('round trip for a live process', () => {
  const dir = dataDir();
  writeControllerRuntime(dir, { pid: process.pid, url: 'http://127.0.0.1:8080', version: '0.13.0' });
  expect(readControllerRuntime(dir)).toEqual({ pid: process.pid, url: 'http://127.0.0.1:8080', version: '0.13.0' });
  expect(statSync(join(dir, FILE)).mode & 0o777).toBe(0o644);
  expect(readdirSync(dir)).toEqual([FILE]);
});

test('a later write replaces the earlier one', () => {
  const dir = dataDir();
  writeControllerRuntime(dir, { pid: process.pid, url: 'http://127.0.0.1:1111', version: '0.13.0' });
  writeControllerRuntime(dir, { pid: process.pid, url: 'http://127.0.0.1:2222', version: '0.13.1' });
  expect(readControllerRuntime(dir)).toMatchObject({ url: 'http://127.0.0.1:2222', version: '0.13.1' });
});

test('the note of a process that has exited reads as null', async () => {
  const dir = dataDir();
  writeControllerRuntime(dir, { pid: await deadPid(), url: 'http://127.0.0.1:8080', version: '0.13.0' });
  expect(readControllerRuntime(dir)).toBeNull();
});

test('no file: null', () => {
  expect(readControllerRuntime(dataDir())).toBeNull();
});

test.each([
  ['garbage', 'not json'],
  ['no pid', JSON.stringify({ url: 'http://127.0.0.1:8080' })],
  ['a string pid', JSON.stringify({ pid: String(process.pid), url: 'http://127.0.0.1:8080' })],
  ['no url', JSON.stringify({ pid: process.pid })],
  ['a fractional pid', JSON.stringify({ pid: 1.5, url: 'http://127.0.0.1:8080' })],
])('%s reads as null', (_, content) => {
  const dir = dataDir();
  writeFileSync(join(dir, FILE), content);
  expect(readControllerRuntime(dir)).toBeNull();
});

test('a note without a version reads with an empty one', () => {
  const dir = dataDir();
  writeFileSync(join(dir, FILE), JSON.stringify({ pid: process.pid, url: 'http://127.0.0.1:8080' }));
  expect(readControllerRuntime(dir)).toEqual({ pid: process.pid, url: 'http://127.0.0.1:8080', version: '' });
});

test('removeControllerRuntime removes only its own pid’s note', async () => {
  const dir = dataDir();
  const other = Bun.spawn(['sleep', '30']);
  cleanups.push(() => other.kill('SIGKILL'));
  // Another controller (alive) wrote the note: a process that is not it leaves it alone.
  writeControllerRuntime(dir, { pid: other.pid, url: 'http://127.0.0.1:9999', version: '0.13.0' });
  removeControllerRuntime(dir, process.pid);
  expect(readControllerRuntime(dir)).toMatchObject({ pid: other.pid });
  removeControllerRuntime(dir, other.pid);
  expect(existsSync(join(dir, FILE))).toBe(false);
  // Its own note is removed.
  writeControllerRuntime(dir, { pid: process.pid, url: 'http://127.0.0.1:8080', version: '0.13.0' });
  removeControllerRuntime(dir, await deadPid());
  expect(existsSync(join(dir, FILE))).toBe(true);
  removeControllerRuntime(dir, process.pid);
  expect(existsSync(join(dir, FILE))).toBe(false);
  // Nothing there: no error.
  removeControllerRuntime(dir, process.pid);
});

// kill(0, 0) / kill(-1, 0) would address a process group / every process and succeed: such a pid is no controller.
test.each([0, -1])('a note with pid %p is no live controller', (pid) => {
  const dir = dataDir();
  writeFileSync(join(dir, FILE), JSON.stringify({ pid, url: 'http://127.0.0.1:8080', version: '0.13.0' }));
  expect(readControllerRuntime(dir)).toBeNull();
});

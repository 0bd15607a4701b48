import { afterEach, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { markerFile, takeAppliedMarker, writeAppliedMarker } from '../../../src/core/update/applied-marker';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

function dataDir(): string {
  const temp = tempDir('svc-marker-');
  cleanups.push(temp.remove);
  return temp.dir;
}

test('the marker lives at data/update-applied.json', () => {
  expect(markerFile('/srv/svc/data')).toBe('/srv/svc/data/update-applied.json');
});

test('round trip: written by the old process, taken by the new one with the time it was written', () => {
  const dir = dataDir();
  const before = Date.now();
  writeAppliedMarker(dir, { oldVersion: '0.13.0', newVersion: '0.13.1' });
  expect(JSON.parse(readFileSync(markerFile(dir), 'utf8'))).toMatchObject({ oldVersion: '0.13.0', newVersion: '0.13.1' });
  const taken = takeAppliedMarker(dir, '0.13.1');
  expect(taken).toMatchObject({ oldVersion: '0.13.0', newVersion: '0.13.1' });
  const at = Date.parse(taken!.at);
  expect(at).toBeGreaterThanOrEqual(before - 1000);
  expect(at).toBeLessThanOrEqual(Date.now());
});

test('the marker is taken once', () => {
  const dir = dataDir();
  writeAppliedMarker(dir, { oldVersion: '0.13.0', newVersion: '0.13.1' });
  expect(takeAppliedMarker(dir, '0.13.1')).not.toBeNull();
  expect(existsSync(markerFile(dir))).toBe(false);
  expect(takeAppliedMarker(dir, '0.13.1')).toBeNull();
});

test('writing creates the data folder and leaves no temp file', () => {
  const dir = join(dataDir(), 'data');
  writeAppliedMarker(dir, { oldVersion: '0.13.0', newVersion: '0.13.1' });
  expect(readdirSync(dir)).toEqual(['update-applied.json']);
});

test('a marker naming another version than the running one is discarded and removed', () => {
  const dir = dataDir();
  // The exec of 0.13.1 failed and 0.13.0 started again: nothing was applied.
  writeAppliedMarker(dir, { oldVersion: '0.13.0', newVersion: '0.13.1' });
  expect(takeAppliedMarker(dir, '0.13.0')).toBeNull();
  expect(existsSync(markerFile(dir))).toBe(false);
});

test('no marker: null', () => {
  expect(takeAppliedMarker(dataDir(), '0.13.1')).toBeNull();
});

test.each([
  ['garbage', 'this is not json{'],
  ['an empty file', ''],
  ['JSON null', 'null'],
  ['a JSON string', '"0.13.1"'],
  ['no oldVersion', JSON.stringify({ newVersion: '0.13.1' })],
  ['a numeric oldVersion', JSON.stringify({ oldVersion: 13, newVersion: '0.13.1' })],
])('%s is tolerated: null, and the file is removed', (_, content) => {
  const dir = dataDir();
  writeFileSync(markerFile(dir), content);
  expect(takeAppliedMarker(dir, '0.13.1')).toBeNull();
  expect(existsSync(markerFile(dir))).toBe(false);
});

test('a marker without `at` is still announced, with an empty time', () => {
  const dir = dataDir();
  writeFileSync(markerFile(dir), JSON.stringify({ oldVersion: '0.13.0', newVersion: '0.13.1' }));
  expect(takeAppliedMarker(dir, '0.13.1')).toEqual({ oldVersion: '0.13.0', newVersion: '0.13.1', at: '' });
});

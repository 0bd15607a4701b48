/**
 * The state-sync store without HTTP: the start-up tidy of what a killed controller left, the
 * last-push facts and copy sizes across a restart, hardlink seeding, and the quota arithmetic.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateSync } from '../../../src/cluster/state-sync/store';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import { MetricsRegistry } from '../../../src/core/metrics/registry';
import { ApiError } from '../../../src/errors';
import { EventBus } from '../../../src/events/bus';
import type { SvcEvent } from '../../../src/events/catalogue';
import { createLogger } from '../../../src/log';
import { tempDir, waitFor } from '../../support/controller';

const scratch = tempDir('svc-state-store-');
afterAll(() => scratch.remove());

const group: Group = { ...groupDefaults(), name: 'Survival', software: 'PAPER', version: '1.21.1', type: 'STATIC', syncEnabled: true, syncExcludes: ['logs'] };
const log = createLogger({ format: 'json', colored: false, stdout: { write: () => undefined } });

function store(root: string, quota = 0): { sync: StateSync; events: SvcEvent[] } {
  const bus = new EventBus();
  const events: SvcEvent[] = [];
  bus.subscribe((e) => events.push(e));
  const sync = new StateSync({ root, groups: { get: (name) => (name === group.name ? group : undefined) }, quotaBytes: () => quota, maxPushBytes: 1 << 20, bus, metrics: new MetricsRegistry(), log });
  return { sync, events };
}

const sha256 = (data: string) => new Bun.CryptoHasher('sha256').update(data).digest('hex');

const manifestText = (files: Record<string, string>) => JSON.stringify({ files: Object.fromEntries(Object.entries(files).map(([rel, text]) => [rel, { sha256: sha256(text), size: Buffer.byteLength(text) }])) });

/** A push body as the client builds it: FormData → a multipart stream. */
function body(files: Record<string, string>, upload: readonly string[]): { stream: ReadableStream<Uint8Array>; type: string } {
  const form = new FormData();
  form.append('manifest', manifestText(files));
  for (const rel of upload) form.append(`file:${rel}`, new Blob([files[rel]!]), 'x');
  const request = new Request('http://local/', { method: 'POST', body: form });
  return { stream: request.body!, type: request.headers.get('content-type')! };
}

async function push(sync: StateSync, service: string, files: Record<string, string>, upload: readonly string[] = Object.keys(files)) {
  const { stream, type } = body(files, upload);
  return sync.push(service, stream, type);
}

describe('start-up', () => {
  test('a killed push and a killed swap are cleaned up; a copy missing mid-swap is restored', () => {
    const root = join(scratch.dir, 'tidy');
    mkdirSync(join(root, 'Survival-1.incoming', 'world'), { recursive: true });
    writeFileSync(join(root, 'Survival-1.incoming', 'world', 'half.dat'), 'half');
    mkdirSync(join(root, 'Survival-1'));
    writeFileSync(join(root, 'Survival-1', 'kept.txt'), 'current');
    mkdirSync(join(root, 'Survival-1.old-0123456789abcdef'));
    // Killed between the two renames: only the old copy is left.
    mkdirSync(join(root, 'Survival-2.old-fedcba9876543210'));
    writeFileSync(join(root, 'Survival-2.old-fedcba9876543210', 'x.txt'), 'previous');
    writeFileSync(join(root, '.sync-stats.json.123.456.tmp'), '{');
    const { sync } = store(root);
    expect(readdirSync(root).sort()).toEqual(['Survival-1', 'Survival-2']);
    expect(readFileSync(join(root, 'Survival-2', 'x.txt'), 'utf8')).toBe('previous');
    expect(sync.root).toBe(root);
  });

  test('sizes and last-push facts survive a restart', async () => {
    const root = join(scratch.dir, 'restart');
    const first = store(root).sync;
    await push(first, 'Survival-1', { 'a.txt': 'alpha', 'b/c.txt': 'charlie' });
    const view = first.viewOf({ name: 'Survival-1', group: 'Survival' })!;
    expect(view).toEqual({ lastPushAt: expect.any(String), lastPushBytes: 12, lastPushFiles: 2, canonicalSizeBytes: 12 });

    const second = store(root).sync;
    await second.ready;
    expect(second.viewOf({ name: 'Survival-1', group: 'Survival' })).toEqual(view);
    expect(second.totalBytes()).toBe(12);
    expect(second.viewOf({ name: 'Survival-9', group: 'Survival' })).toEqual({ lastPushAt: null, lastPushBytes: 0, lastPushFiles: 0, canonicalSizeBytes: 0 });
    expect(second.viewOf({ name: 'Lobby-1', group: 'Lobby' })).toBeUndefined();
  });
});

describe('saved hashes', () => {
  test('a restarted store answers from the saved hash tables (checked by stamp), and re-hashes what changed', async () => {
    const root = join(scratch.dir, 'hashes');
    const first = store(root).sync;
    await push(first, 'Survival-1', { 'a.txt': 'alpha', 'b.txt': 'bravo' });
    const saved = JSON.parse(readFileSync(join(root, '.hashes', 'Survival-1.json'), 'utf8'));
    expect(Object.keys(saved).sort()).toEqual(['a.txt', 'b.txt']);

    // Same size, same mtime, same inode: only a saved table can still say "alpha" (proof it was used).
    // A whole-second mtime, so it can be set again exactly; the second push seeds (links) the
    // file, keeping that mtime, and saves the table.
    const file = join(root, 'Survival-1', 'a.txt');
    const when = new Date('2024-01-01T00:00:00Z');
    utimesSync(file, when, when);
    await first.manifest('Survival-1');
    await push(first, 'Survival-1', { 'a.txt': 'alpha', 'b.txt': 'bravo' }, []);
    writeFileSync(file, 'ALPHA');
    utimesSync(file, when, when);
    writeFileSync(join(root, 'Survival-1', 'b.txt'), 'bravo, longer');
    const second = store(root).sync;
    const manifest = await second.manifest('Survival-1');
    expect(manifest.files['a.txt']!.sha256).toBe(sha256('alpha'));
    expect(manifest.files['b.txt']).toEqual({ sha256: sha256('bravo, longer'), size: 13 });
  });
});

describe('push', () => {
  test('unchanged files are hardlinked from the old copy, never rewritten; the old copy goes away', async () => {
    const root = join(scratch.dir, 'seed');
    const { sync, events } = store(root);
    await push(sync, 'Survival-1', { 'keep.txt': 'same', 'change.txt': 'v1', 'drop.txt': 'bye' });
    const kept = statSync(join(root, 'Survival-1', 'keep.txt')).ino;
    const result = await push(sync, 'Survival-1', { 'keep.txt': 'same', 'change.txt': 'v2' }, ['change.txt']);
    expect(result).toEqual({ success: true, filesReceived: 1, bytesReceived: 2, filesInManifest: 2 });
    expect(statSync(join(root, 'Survival-1', 'keep.txt')).ino).toBe(kept);
    expect(readFileSync(join(root, 'Survival-1', 'change.txt'), 'utf8')).toBe('v2');
    expect(existsSync(join(root, 'Survival-1', 'drop.txt'))).toBe(false);
    await waitFor(() => readdirSync(root).every((name) => !name.includes('.old-')), { what: 'the old copy to be removed' });
    expect(events.map((e) => e.type)).toEqual(['SYNC_COMPLETED', 'SYNC_COMPLETED']);
    // The manifest of the new copy reuses the recorded hashes (no second read needed) and is right.
    expect(await sync.manifest('Survival-1')).toEqual({ files: { 'change.txt': { sha256: sha256('v2'), size: 2 }, 'keep.txt': { sha256: sha256('same'), size: 4 } } });
  });

  test('an excluded path in a push is dropped, its part skipped', async () => {
    const root = join(scratch.dir, 'excluded');
    const { sync } = store(root);
    const result = await push(sync, 'Survival-1', { 'a.txt': 'a', 'logs/latest.log': 'log' });
    expect(result).toEqual({ success: true, filesReceived: 1, bytesReceived: 1, filesInManifest: 1 });
    expect(existsSync(join(root, 'Survival-1', 'logs'))).toBe(false);
  });

  test('the quota counts the other copies and this push, its manifest included; 507 leaves everything as it was', async () => {
    const root = join(scratch.dir, 'quota');
    // Two copies of 10 bytes, plus the manifest of the push being checked.
    const { sync, events } = store(root, 20 + Buffer.byteLength(manifestText({ 'a.txt': '0123456789' })));
    await push(sync, 'Survival-1', { 'a.txt': '0123456789' });
    await push(sync, 'Survival-2', { 'a.txt': '0123456789' });
    const error = await push(sync, 'Survival-2', { 'a.txt': '0123456789', 'b.txt': 'x' }, ['b.txt']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(507);
    expect((error as ApiError).errorCode).toBe('PAYLOAD_TOO_LARGE');
    expect(readdirSync(join(root, 'Survival-2'))).toEqual(['a.txt']);
    expect(events.at(-1)).toMatchObject({ type: 'SYNC_FAILED', data: { service: 'Survival-2' } });
    // Shrinking is always allowed.
    await push(sync, 'Survival-1', { 'a.txt': '01234' });
    expect(sync.totalBytes()).toBe(15);
  });
});

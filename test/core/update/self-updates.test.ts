/**
 * SelfUpdates (one update job at a time, the automatic mode, SVC_UPDATE_APPLIED) built as the
 * controller builds it: a real EventBus, an AuditStore over a migrated sqlite database, the
 * controller's JSON-lines logger whose lines the tests read, and a local fake release feed.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, linkSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pkg from '../../../package.json' with { type: 'json' };
import { AuditStore } from '../../../src/core/audit/store';
import { markerFile, writeAppliedMarker } from '../../../src/core/update/applied-marker';
import { previousOf } from '../../../src/core/update/install';
import { hostAssetName } from '../../../src/core/update/platform';
import type { AutoUpdateMode } from '../../../src/core/update/policy';
import { SelfUpdates } from '../../../src/core/update/self-updates';
import { ApiError } from '../../../src/errors';
import { EventBus } from '../../../src/events/bus';
import type { SvcEvent } from '../../../src/events/catalogue';
import { createLogger } from '../../../src/log';
import { openDatabase } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../../src/storage/core-migrations';
import { svcBinaryAs } from '../../support/binary';
import { tempDir, waitFor } from '../../support/controller';
import { REPO_PATH, startFakeFeed, sumsOf } from './support';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((cleanup) => cleanup()));

const [MAJOR, MINOR, PATCH] = pkg.version.split('.').map(Number) as [number, number, number];
const CURRENT = pkg.version;
const NEXT_PATCH = `${MAJOR}.${MINOR}.${PATCH + 1}`;
const NEXT_MINOR = `${MAJOR}.${MINOR + 1}.0`;
const NEXT_MAJOR = `${MAJOR + 1}.0.0`;
const OLD_BYTES = 'the running svc binary';
const ENDED = new Set(['failed', 'up-to-date', 'checked']);

function setup(options: { binary?: boolean; feedUrl?: string; mode?: AutoUpdateMode; version?: string } = {}) {
  const feed = startFakeFeed();
  cleanups.push(feed.stop);
  const temp = tempDir('svc-self-updates-');
  cleanups.push(temp.remove);
  const binary = join(temp.dir, 'svc');
  writeFileSync(binary, OLD_BYTES, { mode: 0o755 });
  const dataDir = join(temp.dir, 'data');
  const db = openDatabase(':memory:');
  migrate(db, 'core', CORE_MIGRATIONS);
  cleanups.push(() => db.close());
  const audit = new AuditStore(db);
  const bus = new EventBus();
  const events: SvcEvent[] = [];
  bus.subscribe((event) => void events.push(event));
  const logLines: string[] = [];
  const log = createLogger({ format: 'json', colored: false, stdout: { write: (line: string) => void logLines.push(line) } });
  const restarts: string[] = [];
  const settings = { update_check_url: options.feedUrl ?? feed.latestUrl, update_public_key: '', auto_update: options.mode ?? 'off' };
  const updates = new SelfUpdates({
    settings: () => settings,
    version: options.version ?? CURRENT,
    binary: options.binary === false ? null : binary,
    dataDir,
    bus,
    audit,
    log,
    restart: (reason) => void restarts.push(reason),
  });
  cleanups.push(() => updates.stop());
  const ended = () => waitFor(() => (ENDED.has(updates.job().state) ? updates.job() : null), { what: 'the update job to end', timeoutMs: 15_000 });
  const messages = () => logLines.map((line) => String((JSON.parse(line) as { msg?: unknown }).msg ?? ''));
  const logged = (text: string) => waitFor(() => messages().find((msg) => msg.includes(text)), { what: `a log line with "${text}"`, timeoutMs: 10_000 });
  const auditOf = (action: string) => audit.list({ limit: 100, offset: 0, action }).entries;
  return { feed, binary, dataDir, bus, events, audit, auditOf, logLines, restarts, settings, updates, ended, logged };
}

/** A release on the feed without this machine's binary: a job for it fails once it has read the release. */
function publishWithoutBinary(feed: ReturnType<typeof startFakeFeed>, version: string, latest = true) {
  feed.publish({ version, assets: [{ name: 'svc-plan9-mips', body: 'x' }, { name: 'SHA256SUMS', body: sumsOf({ 'svc-plan9-mips': 'x' }) }] }, { latest });
}

function apiError(work: () => unknown): ApiError {
  let caught: unknown;
  try {
    work();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ApiError);
  return caught as ApiError;
}

describe('request refuses at once', () => {
  test('UPDATE_NOT_POSSIBLE when svc runs from source (no binary), for an update and for a rollback', () => {
    const s = setup({ binary: false });
    for (const input of [{}, { rollback: true }]) {
      const error = apiError(() => s.updates.request(input, 'api:admin'));
      expect(error.errorCode).toBe('UPDATE_NOT_POSSIBLE');
      expect(error.status).toBe(409);
      expect(error.message).toContain('runs from source');
    }
    expect(s.updates.job().state).toBe('idle');
    expect(s.auditOf('SVC_UPDATE_REQUESTED')).toEqual([]);
    expect(s.feed.requests).toEqual([]);
  });

  test('UPDATE_NOT_POSSIBLE when the feed URL is blank', () => {
    const s = setup({ feedUrl: '' });
    const error = apiError(() => s.updates.request({ version: NEXT_PATCH }, 'api:admin'));
    expect(error.errorCode).toBe('UPDATE_NOT_POSSIBLE');
    expect(error.message).toContain('update_check_url');
    expect(s.updates.job().state).toBe('idle');
    expect(s.auditOf('SVC_UPDATE_REQUESTED')).toEqual([]);
  });

  test('a rollback needs no feed: with a blank URL it is accepted (and fails: there is no .previous)', async () => {
    const s = setup({ feedUrl: '' });
    expect(s.updates.request({ rollback: true }, 'console')).toMatchObject({ state: 'checking', action: 'rollback', requestedBy: 'console' });
    const job = await s.ended();
    expect(job.state).toBe('failed');
    expect(job.error).toStartWith(`${previousOf(s.binary)} cannot be restored: `);
    expect(s.auditOf('SVC_ROLLBACK_REQUESTED')).toMatchObject([{ actor: 'console' }]);
    expect(readFileSync(s.binary, 'utf8')).toBe(OLD_BYTES);
  });

  test('UPDATE_IN_PROGRESS while a job runs; accepted again once it has ended', async () => {
    const s = setup();
    publishWithoutBinary(s.feed, NEXT_PATCH);
    const release = s.feed.hold();
    let released = false;
    cleanups.unshift(() => released || release());
    const job = s.updates.request({ version: NEXT_PATCH }, 'api:admin');
    expect(job).toMatchObject({ state: 'checking', targetVersion: NEXT_PATCH });
    // The job is now waiting on the feed's answer.
    await waitFor(() => s.feed.requests.length > 0, { what: 'the job to ask the feed' });
    for (const input of [{}, { version: NEXT_MINOR }, { rollback: true }]) {
      const error = apiError(() => s.updates.request(input, 'api:other'));
      expect(error.errorCode).toBe('UPDATE_IN_PROGRESS');
      expect(error.message).toBe(`an update is already checking (to ${NEXT_PATCH}); wait for it to end`);
    }
    expect(s.updates.job()).toMatchObject({ state: 'checking', requestedBy: 'api:admin' });
    released = true;
    release();
    expect((await s.ended()).state).toBe('failed');
    expect(s.updates.request({}, 'api:other').state).toBe('checking');
    await s.ended();
    expect(s.auditOf('SVC_UPDATE_REQUESTED').map((e) => e.actor)).toEqual(['api:other', 'api:admin']);
  });
});

describe('jobs', () => {
  test('a failing job ends "failed" with the reason; the request is audited with its actor; nothing is replaced', async () => {
    const s = setup();
    publishWithoutBinary(s.feed, NEXT_PATCH);
    const started = s.updates.request({ version: `v${NEXT_PATCH}` }, 'api:admin');
    expect(started).toMatchObject({ state: 'checking', action: 'update', dryRun: false, currentVersion: CURRENT, targetVersion: NEXT_PATCH, error: null, requestedBy: 'api:admin', finishedAt: null });
    expect(Date.parse(started.startedAt!)).not.toBeNaN();
    const job = await s.ended();
    expect(job).toMatchObject({ state: 'failed', action: 'update', targetVersion: NEXT_PATCH, error: `release ${NEXT_PATCH} has no ${hostAssetName()} for this machine`, requestedBy: 'api:admin' });
    expect(Date.parse(job.finishedAt!)).toBeGreaterThanOrEqual(Date.parse(job.startedAt!));
    expect(s.auditOf('SVC_UPDATE_REQUESTED')).toMatchObject([{ actor: 'api:admin', target: `v${NEXT_PATCH}`, details: '' }]);
    expect(s.restarts).toEqual([]);
    expect(readFileSync(s.binary, 'utf8')).toBe(OLD_BYTES);
    expect(existsSync(markerFile(s.dataDir))).toBe(false);
    await s.logged('update failed, the binary is unchanged');
  });

  test('a dry run is audited as one', async () => {
    const s = setup();
    publishWithoutBinary(s.feed, NEXT_PATCH);
    expect(s.updates.request({ dryRun: true }, 'dashboard:alice')).toMatchObject({ dryRun: true, targetVersion: null });
    expect(await s.ended()).toMatchObject({ state: 'failed', dryRun: true });
    expect(s.auditOf('SVC_UPDATE_REQUESTED')).toMatchObject([{ actor: 'dashboard:alice', target: 'latest', details: 'dry run' }]);
  });

  test('a rollback has no dry run', async () => {
    const s = setup();
    s.updates.request({ rollback: true, dryRun: true }, 'api:admin');
    expect(await s.ended()).toMatchObject({ state: 'failed', action: 'rollback', error: 'a rollback has no dry run' });
  });

  test('an up-to-date job ends "up-to-date" naming the feed’s latest; nothing downloaded', async () => {
    const s = setup();
    publishWithoutBinary(s.feed, CURRENT);
    s.updates.request({}, 'api:admin');
    expect(await s.ended()).toMatchObject({ state: 'up-to-date', targetVersion: CURRENT, error: null });
    expect(s.feed.requests).toEqual([`${REPO_PATH}/latest`]);
    expect(s.restarts).toEqual([]);
  });

  test('a feed that fails is a failed job, not an exception', async () => {
    const s = setup({ feedUrl: 'http://127.0.0.1:1/repos/example/svc/releases/latest' });
    s.updates.request({}, 'api:admin');
    const job = await s.ended();
    expect(job.state).toBe('failed');
    expect(job.error).toStartWith('the update feed http://127.0.0.1:1/repos/example/svc/releases/latest did not answer');
  });

  test('a rollback to a real previous binary: restarting, the marker written, restart called; the new process announces it once', async () => {
    const s = setup();
    const previousBuild = await svcBinaryAs(NEXT_PATCH);
    try {
      linkSync(previousBuild, previousOf(s.binary));
    } catch {
      copyFileSync(previousBuild, previousOf(s.binary));
    }
    s.updates.request({ rollback: true }, 'api:admin');
    await waitFor(() => s.restarts.length > 0, { what: 'restart to be called', timeoutMs: 30_000 });
    expect(s.restarts).toEqual([`update to ${NEXT_PATCH}`]);
    expect(s.updates.job()).toMatchObject({ state: 'restarting', action: 'rollback', targetVersion: NEXT_PATCH, error: null });
    expect(readFileSync(previousOf(s.binary), 'utf8')).toBe(OLD_BYTES);
    expect(JSON.parse(readFileSync(markerFile(s.dataDir), 'utf8'))).toMatchObject({ oldVersion: CURRENT, newVersion: NEXT_PATCH });
    expect(s.auditOf('SVC_ROLLBACK_REQUESTED')).toMatchObject([{ actor: 'api:admin' }]);
    // Until the process is replaced, nothing else may start.
    expect(apiError(() => s.updates.request({}, 'api:admin')).errorCode).toBe('UPDATE_IN_PROGRESS');

    // The process that replaces it (same data dir, now NEXT_PATCH).
    const bus = new EventBus();
    const events: SvcEvent[] = [];
    bus.subscribe((event) => void events.push(event));
    const after = new SelfUpdates({ ...depsLike(s), version: NEXT_PATCH, bus });
    after.announceApplied();
    after.announceApplied();
    expect(events.map((e) => [e.type, e.data])).toEqual([['SVC_UPDATE_APPLIED', { oldVersion: CURRENT, newVersion: NEXT_PATCH }]]);
  }, 60_000);
});

/** Deps for a second SelfUpdates on the same data dir. */
function depsLike(s: ReturnType<typeof setup>) {
  return {
    settings: () => s.settings,
    version: CURRENT,
    binary: s.binary,
    dataDir: s.dataDir,
    bus: s.bus,
    audit: s.audit,
    log: createLogger({ format: 'json' as const, colored: false, stdout: { write: () => undefined } }),
    restart: () => undefined,
  };
}

describe('announceApplied', () => {
  test('publishes SVC_UPDATE_APPLIED once for a marker naming this version', () => {
    const s = setup();
    writeAppliedMarker(s.dataDir, { oldVersion: '0.12.4', newVersion: CURRENT });
    s.updates.announceApplied();
    s.updates.announceApplied();
    const applied = s.events.filter((e) => e.type === 'SVC_UPDATE_APPLIED');
    expect(applied).toHaveLength(1);
    expect(applied[0]).toMatchObject({ type: 'SVC_UPDATE_APPLIED', actor: 'system', data: { oldVersion: '0.12.4', newVersion: CURRENT } });
    expect(existsSync(markerFile(s.dataDir))).toBe(false);
  });

  test('a marker naming another version publishes nothing and is removed', () => {
    const s = setup();
    writeAppliedMarker(s.dataDir, { oldVersion: CURRENT, newVersion: NEXT_PATCH });
    s.updates.announceApplied();
    expect(s.events).toEqual([]);
    expect(existsSync(markerFile(s.dataDir))).toBe(false);
  });

  test('no marker: nothing', () => {
    const s = setup();
    s.updates.announceApplied();
    expect(s.events).toEqual([]);
  });
});

describe('startAutomatic', () => {
  test.each([
    ['patch', NEXT_MAJOR, 'MAJOR'],
    ['patch', NEXT_MINOR, 'MINOR'],
    ['minor', NEXT_MAJOR, 'MAJOR'],
  ] as const)('auto_update = %p leaves %s (a %s release) to an operator', async (mode, latest, type) => {
    const s = setup({ mode });
    publishWithoutBinary(s.feed, latest);
    s.updates.startAutomatic();
    await s.updates.check.settled();
    await s.logged(`svc ${latest} is a ${type.toLowerCase()} release: auto_update = "${mode}" leaves it to an operator (svc update)`);
    expect(s.updates.job().state).toBe('idle');
    expect(s.feed.requests).toEqual([`${REPO_PATH}/latest`]);
    expect(s.auditOf('SVC_UPDATE_REQUESTED')).toEqual([]);
    // The check itself still announces the release.
    expect(s.events.filter((e) => e.type === 'SVC_UPDATE_AVAILABLE').map((e) => e.data)).toEqual([{ currentVersion: CURRENT, newVersion: latest, updateType: type }]);
  });

  test.each([
    ['patch', NEXT_PATCH],
    ['minor', NEXT_PATCH],
    ['minor', NEXT_MINOR],
  ] as const)('auto_update = %p applies %s on its own, as "system"', async (mode, latest) => {
    const s = setup({ mode });
    publishWithoutBinary(s.feed, latest);
    s.updates.startAutomatic();
    await s.updates.check.settled();
    const started = await waitFor(() => (s.updates.job().state !== 'idle' ? s.updates.job() : null), { what: 'the automatic job to start' });
    expect(started).toMatchObject({ action: 'update', targetVersion: latest, requestedBy: 'system', dryRun: false });
    // It fails on the missing asset: the job ran to the release, with the pinned version.
    expect(await s.ended()).toMatchObject({ state: 'failed', error: `release ${latest} has no ${hostAssetName()} for this machine` });
    expect(s.auditOf('SVC_UPDATE_REQUESTED')).toMatchObject([{ actor: 'system', target: latest }]);
    expect(s.feed.requests).toEqual([`${REPO_PATH}/latest`, `${REPO_PATH}/tags/v${latest}`]);
  });

  test('nothing newer on the feed: no job', async () => {
    const s = setup({ mode: 'minor' });
    publishWithoutBinary(s.feed, CURRENT);
    s.updates.startAutomatic();
    await s.updates.check.settled();
    // The automatic tick decides in the microtasks after the check; they have all run by the next macrotask.
    await new Promise((resolve) => setImmediate(resolve));
    expect(s.updates.check.status()).toMatchObject({ updateAvailable: false, latestVersion: CURRENT });
    expect(s.updates.job().state).toBe('idle');
    expect(s.feed.requests).toEqual([`${REPO_PATH}/latest`]);
  });

  test('auto_update = "off" asks nothing', async () => {
    const s = setup({ mode: 'off' });
    publishWithoutBinary(s.feed, NEXT_PATCH);
    s.updates.startAutomatic();
    await s.updates.check.settled();
    expect(s.feed.requests).toEqual([]);
    expect(s.updates.job().state).toBe('idle');
  });

  test('without a binary (a source run) the mode is ignored with a warning', async () => {
    const s = setup({ mode: 'patch', binary: false });
    publishWithoutBinary(s.feed, NEXT_PATCH);
    s.updates.startAutomatic();
    await s.updates.check.settled();
    await s.logged('auto_update = "patch" is ignored: this controller runs from source');
    expect(s.feed.requests).toEqual([]);
  });
});

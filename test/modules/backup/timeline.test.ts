import { afterEach, describe, expect, setSystemTime, test } from 'bun:test';
import { join } from 'node:path';
import { recordTimeline, Timeline } from '../../../src/core/metrics/timeline';
import { newRecord, ServiceRegistry, type ServiceRecord } from '../../../src/core/services/registry';
import { EventBus } from '../../../src/events/bus';
import { resolveBackupsOnTimeline } from '../../../src/modules/backup/timeline';
import { openDatabase } from '../../../src/storage/db';
import { migrate } from '../../../src/storage/migrate';
import { CORE_MIGRATIONS } from '../../../src/storage/core-migrations';
import { tempDir } from '../../support/controller';

const cleanups: (() => void)[] = [];
afterEach(() => {
  setSystemTime();
  cleanups.splice(0).forEach((f) => f());
});

const T0 = Date.parse('2026-11-29T10:00:00.000Z');

function record(name: string, group: string): ServiceRecord {
  return newRecord({ name, group, port: 30000, workDir: '/nowhere', isStatic: false, isProxy: false, memoryMaxMb: 1024, restartCount: 0 });
}

function setup() {
  const { dir, remove } = tempDir();
  cleanups.push(remove);
  const db = openDatabase(join(dir, 'svc.db'));
  migrate(db, 'core', CORE_MIGRATIONS);
  cleanups.unshift(() => db.close());
  const timeline = new Timeline(db);
  const bus = new EventBus();
  const registry = new ServiceRegistry();
  cleanups.unshift(recordTimeline(bus, timeline, (name) => registry.get(name)));
  cleanups.unshift(resolveBackupsOnTimeline(timeline, (name) => registry.get(name)));
  return { timeline, bus, registry };
}

function at(offsetMs: number): void {
  setSystemTime(new Date(T0 + offsetMs));
}

const shape = (timeline: Timeline, service: string) => timeline.steps(service, 100).map((s) => [s.type, s.actor]);

/** The backup module names the service of its backup events, so their runs are on that service's timeline. */
describe('backups on a service’s timeline', () => {
  test('backups of a service or a dedicated one, by whoever triggered them; other targets stay off', () => {
    const { timeline, bus, registry } = setup();
    registry.add(record('Survival', 'Survival'));
    at(0);
    bus.publish('BACKUP_STARTED' as never, { id: '7', targetType: 'DEDICATED', targetName: 'Survival', triggeredBy: 'scheduler' } as never);
    bus.publish('BACKUP_STARTED' as never, { id: '8', targetType: 'TEMPLATES', targetName: 'Survival', triggeredBy: 'api:admin' } as never, 'api:admin');
    at(5_000);
    bus.publish('BACKUP_COMPLETED' as never, { id: '7', targetName: 'Survival', sizeBytes: '1024', durationMs: '5000', status: 'COMPLETED' } as never);
    bus.publish('BACKUP_COMPLETED' as never, { id: '8', targetName: 'Survival', sizeBytes: '1', durationMs: '1', status: 'COMPLETED' } as never);
    at(9_000);
    bus.publish('BACKUP_RESTORED' as never, { id: '7', targetName: 'Survival', targetPath: 'services/Survival', triggeredBy: 'dashboard:Alex' } as never, 'dashboard:Alex');
    bus.publish('BACKUP_RESTORED' as never, { id: '9', targetName: 'Gone', targetPath: 'x', triggeredBy: 'api:admin' } as never, 'api:admin');
    expect(shape(timeline, 'Survival')).toEqual([
      ['BACKUP_RESTORED', 'dashboard:Alex'],
      ['BACKUP_COMPLETED', 'scheduler'],
      ['BACKUP_STARTED', 'scheduler'],
    ]);
    expect(timeline.steps('Gone', 100)).toEqual([]);
    // Every run stays on the network's timeline; only a service's is about that service.
    expect(timeline.query({ limit: 20, types: ['BACKUP_STARTED'] }).map((e) => [e.data.id, e.service, e.actor])).toEqual([
      ['8', null, 'api:admin'],
      ['7', 'Survival', 'scheduler'],
    ]);
  });
});

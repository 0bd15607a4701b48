/**
 * The doctor's Resource Packs section: all is well; a LOCAL pack without its file (FAIL naming
 * it); a file no pack names (WARN with its size); a storage directory others may write (FAIL).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resourcePacksModule, resourcePacksRuntimeOf } from '../../../src/modules/resourcepacks';
import { readJson, startController, type TestController } from '../../support/controller';

interface Finding {
  level: string;
  message: string;
  hint: string | null;
}

let c: TestController;
let dir: string;

beforeAll(async () => {
  c = await startController({ modules: [resourcePacksModule] });
  dir = join(c.dir, 'data/resourcepacks');
});
afterAll(() => c.stop());

async function findings(): Promise<Finding[]> {
  const report = await readJson(await c.api('/api/doctor'));
  return report.sections.find((s: { name: string }) => s.name === 'Resource Packs').findings;
}

describe('doctor: resource packs', () => {
  test('the storage directory is created private (750) and an empty registry is OK', async () => {
    expect(statSync(dir).mode & 0o777).toBe(0o750);
    expect(await findings()).toEqual([{ level: 'OK', message: '0 local pack file(s) present (+ 0 URL pack(s)) in data/resourcepacks', hint: null }]);
  });

  test('a LOCAL pack whose file is gone is a FAIL naming it; a file no pack names is a WARN', async () => {
    const store = resourcePacksRuntimeOf(c.controller.kernel).store;
    const packUuid = '0a0b0c0d-0000-4000-8000-000000000001';
    const pack = store.insertPack({ packUuid, name: 'Vanished', source: 'LOCAL', url: `/api/resourcepacks/files/${packUuid}.zip`, sha1Hash: 'a'.repeat(40), promptMessage: '', force: false, fileSize: 10, uploadedAt: Date.now(), uploadedBy: 'test' });
    writeFileSync(join(dir, '0a0b0c0d-0000-4000-8000-0000000000ff.zip'), new Uint8Array(2 * 1024 * 1024));
    try {
      const found = await findings();
      expect(found.map((f) => f.level).sort()).toEqual(['FAIL', 'WARN']);
      expect(found.find((f) => f.level === 'FAIL')!.message).toBe(`1 LOCAL pack(s) without their file: "Vanished" (id ${pack.id})`);
      expect(found.find((f) => f.level === 'WARN')!.message).toBe('1 file(s) in data/resourcepacks belong to no pack (2.0 MiB): 0a0b0c0d-0000-4000-8000-0000000000ff.zip');
    } finally {
      store.deletePack(pack.id);
      rmSync(join(dir, '0a0b0c0d-0000-4000-8000-0000000000ff.zip'));
    }
  });

  test('a world-writable storage directory is a FAIL with the fix', async () => {
    chmodSync(dir, 0o777);
    try {
      const failed = (await findings()).find((f) => f.level === 'FAIL');
      expect(failed?.message).toStartWith('data/resourcepacks is world-writable (mode 777)');
      expect(failed?.hint).toBe('chmod 750 data/resourcepacks');
    } finally {
      chmodSync(dir, 0o750);
    }
    expect((await findings()).map((f) => f.level)).toEqual(['OK']);
  });
});

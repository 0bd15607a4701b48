/** What a request names as the pack: our form (source a host, the pack in url/id/projectId/slug) or the dashboard's free text. */
import { describe, expect, test } from 'bun:test';
import { finalizeChoiceOf } from '../../../src/core/modpacks/finalize-params';
import { packRefOf, packRefOfImport, packRefOfText } from '../../../src/core/modpacks/pack-ref';
import { ApiError } from '../../../src/errors';

function failure(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return `${error.errorCode}: ${error.message}`;
    throw error;
  }
  return 'no error';
}

describe('packRefOfText (the dashboard\'s "source")', () => {
  test.each([
    ['adrenaserver', { source: 'modrinth', project: 'adrenaserver', guessed: true }],
    ['  1KVo5zza ', { source: 'modrinth', project: '1KVo5zza', guessed: true }],
    ['285109', { source: 'curseforge', project: '285109' }],
    ['curseforge:all-the-mods-10', { source: 'curseforge', project: 'all-the-mods-10' }],
    ['CurseForge: atm10', { source: 'curseforge', project: 'atm10' }],
    ['modrinth:fabulously-optimized', { source: 'modrinth', project: 'fabulously-optimized' }],
    ['https://modrinth.com/modpack/adrenaserver', { source: 'modrinth', project: 'adrenaserver', version: undefined }],
    ['https://modrinth.com/modpack/adrenaserver/version/abc123', { source: 'modrinth', project: 'adrenaserver', version: 'abc123' }],
    ['modrinth.com/modpack/adrenaserver', { source: 'modrinth', project: 'adrenaserver', version: undefined }],
    ['https://www.curseforge.com/minecraft/modpacks/all-the-mods-10', { source: 'curseforge', project: 'all-the-mods-10', version: undefined }],
    ['https://www.curseforge.com/minecraft/modpacks/all-the-mods-10/files/5432', { source: 'curseforge', project: 'all-the-mods-10', version: '5432' }],
  ])('%p', (text, ref) => {
    expect(packRefOfText(text)).toEqual(ref as never);
  });

  test.each(['', '   ', 'All the Mods 10', 'a/b', 'x?y', 'x#y', '50%', 'tab\there', 'curseforge:', 'a'.repeat(129), 'https://example.com/pack', 'https://modrinth.com/plugin', 'ftp://modrinth.com/modpack/x'])('%p is VALIDATION_FAILED naming "source"', (text) => {
    expect(failure(() => packRefOfText(text))).toMatch(/^VALIDATION_FAILED: .*"source"/);
  });
});

describe('packRefOf (resolve) and packRefOfImport decide by the value of source', () => {
  test('resolve: url, id, or the pack alone in source', () => {
    expect(packRefOf({ id: 'test-pack' })).toEqual({ source: 'modrinth', project: 'test-pack' });
    expect(packRefOf({ id: '2001' })).toEqual({ source: 'curseforge', project: '2001' });
    expect(packRefOf({ id: 'x', source: 'curseforge' })).toEqual({ source: 'curseforge', project: 'x' });
    expect(packRefOf({ source: 'curseforge:x' })).toEqual({ source: 'curseforge', project: 'x' });
    expect(failure(() => packRefOf({ id: 'x', source: 'curseforge:x' }))).toContain('"source" must be "modrinth" or "curseforge"');
    expect(failure(() => packRefOf({ source: 'modrinth' }))).toContain('needs "url"');
    expect(failure(() => packRefOf({}))).toContain('needs "url"');
  });

  test('imports: a host with projectId or slug, or free text (versionId applies to either)', () => {
    expect(packRefOfImport({ source: 'modrinth', slug: 'x', versionId: 'v1' })).toEqual({ source: 'modrinth', project: 'x', version: 'v1' });
    expect(packRefOfImport({ source: 'curseforge', projectId: '12', slug: 'ignored' })).toEqual({ source: 'curseforge', project: '12', version: undefined });
    expect(packRefOfImport({ source: 'adrenaserver', versionId: 'v2' })).toEqual({ source: 'modrinth', project: 'adrenaserver', guessed: true, version: 'v2' });
    expect(packRefOfImport({ source: 'https://modrinth.com/modpack/a/version/v3' })).toEqual({ source: 'modrinth', project: 'a', version: 'v3' });
    expect(failure(() => packRefOfImport({ source: 'modrinth' }))).toContain('"projectId" or "slug"');
    expect(failure(() => packRefOfImport({ source: 'adrenaserver', slug: 'x' }))).toContain('body "slug" goes with source');
  });
});

describe('finalizeChoiceOf', () => {
  const uploadId = 'a'.repeat(32);
  test('groupName → group; name and port → dedicated', () => {
    expect(finalizeChoiceOf({ uploadId, groupName: 'G', memory: '4G', minInstances: 0 }, 'query parameter')).toEqual({
      kind: 'group',
      params: { uploadId, groupName: 'G', memory: '4G', minInstances: 0, type: undefined, maxInstances: undefined, modloaderVersion: undefined },
    });
    expect(finalizeChoiceOf({ uploadId, name: 'D', port: 25_600, proxyEnabled: false, memory: '4G' }, 'body field')).toEqual({
      kind: 'dedicated',
      params: { uploadId, name: 'D', port: 25_600, proxyEnabled: false, memory: '4G' },
    });
  });

  test.each([
    [{ groupName: 'G', name: 'D', port: 1 }, 'query parameter "groupName" (a new group) and "name"'],
    [{ name: 'D' }, 'query parameter "port" is required'],
    [{ groupName: 'G', port: 1 }, 'query parameter "port" is for a dedicated service'],
    [{ groupName: 'G', proxyEnabled: true }, 'query parameter "proxyEnabled" is for a dedicated service'],
    [{ name: 'D', port: 1, type: 'STATIC' as const }, 'query parameter "type" is for a group'],
    [{ name: 'D', port: 1, modloaderVersion: '1' }, 'query parameter "modloaderVersion" is for a group'],
    [{ memory: '4G' }, 'query parameter "groupName" is required'],
  ])('%j → VALIDATION_FAILED', (input, message) => {
    expect(failure(() => finalizeChoiceOf({ uploadId, ...input }, 'query parameter'))).toContain(message);
  });
});

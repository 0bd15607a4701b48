/** Containment on disk: links inside a scope work, links leading out (at any depth, chained, dangling) are traversal. */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspectLeaf, isInside, resolveExisting, resolveLeaf } from '../../../src/core/files/confine';
import { ApiError } from '../../../src/errors';
import { tempDir } from '../../support/controller';

const scratch = tempDir('svc-confine-');
afterAll(() => scratch.remove());

const base = realpathSync(scratch.dir);
const root = join(base, 'scope');
const outside = join(base, 'outside');
mkdirSync(join(root, 'lobby/plugins'), { recursive: true });
mkdirSync(outside);
writeFileSync(join(outside, 'secret.txt'), 'SECRET');
writeFileSync(join(root, 'lobby/server.properties'), 'motd=x');
symlinkSync(outside, join(root, 'out-dir'));
symlinkSync(join(outside, 'secret.txt'), join(root, 'out-file'));
symlinkSync('../../outside', join(root, 'lobby/rel-out'));
symlinkSync(join(root, 'chain-2'), join(root, 'chain-1'));
symlinkSync(outside, join(root, 'chain-2'));
symlinkSync(join(outside, 'missing'), join(root, 'dangling'));
symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'));
symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'));
symlinkSync('lobby', join(root, 'in-dir'));
symlinkSync('lobby/server.properties', join(root, 'in-file'));
symlinkSync('..', join(root, 'lobby/up-inside')); // back to the root: still inside

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    if (error instanceof ApiError) return error.errorCode;
    throw error;
  }
}

describe('resolveExisting', () => {
  test.each([
    [['out-dir'], 'PATH_TRAVERSAL'],
    [['out-dir', 'secret.txt'], 'PATH_TRAVERSAL'],
    [['out-dir', 'missing', 'deeper'], 'PATH_TRAVERSAL'],
    [['out-file'], 'PATH_TRAVERSAL'],
    [['lobby', 'rel-out', 'secret.txt'], 'PATH_TRAVERSAL'],
    [['chain-1', 'secret.txt'], 'PATH_TRAVERSAL'],
    [['dangling'], 'PATH_TRAVERSAL'],
    [['dangling', 'x'], 'PATH_TRAVERSAL'],
    [['loop-a'], 'PATH_TRAVERSAL'],
    [['missing'], 'PATH_NOT_FOUND'],
    [['lobby', 'missing', 'deeper'], 'PATH_NOT_FOUND'],
    [['lobby', 'server.properties', 'x'], 'PATH_NOT_FOUND'],
    [['lobby', 'server.properties'], 'ok'],
    [['in-dir', 'server.properties'], 'ok'],
    [['in-file'], 'ok'],
    [['lobby', 'up-inside', 'lobby'], 'ok'],
    [[], 'ok'],
  ])('%j → %s', async (segments, code) => {
    expect(await codeOf(() => resolveExisting(root, segments))).toBe(code);
  });

  test('answers real paths', async () => {
    expect((await resolveExisting(root, ['in-file'])).real).toBe(join(root, 'lobby/server.properties'));
    expect((await resolveExisting(root, [])).rootReal).toBe(root);
  });

  test('a missing scope root is PATH_NOT_FOUND', async () => {
    expect(await codeOf(() => resolveExisting(join(base, 'nope'), ['x']))).toBe('PATH_NOT_FOUND');
  });
});

describe('resolveLeaf', () => {
  test.each([
    [['out-dir', 'new.txt'], 'PATH_TRAVERSAL'],
    [['out-file'], 'PATH_TRAVERSAL'],
    [['chain-1'], 'PATH_TRAVERSAL'],
    [['dangling'], 'PATH_TRAVERSAL'],
    [['lobby', 'rel-out'], 'PATH_TRAVERSAL'],
    [['missing', 'new.txt'], 'PATH_NOT_FOUND'],
    [['lobby', 'server.properties', 'new.txt'], 'PATH_NOT_FOUND'],
    [['lobby', 'new.txt'], 'ok'],
  ])('%j → %s', async (segments, code) => {
    expect(await codeOf(() => resolveLeaf(root, segments))).toBe(code);
  });

  test('a link inside the scope is written through to its real target', async () => {
    const leaf = await resolveLeaf(root, ['in-file']);
    expect(leaf.path).toBe(join(root, 'in-file'));
    expect(leaf.entry?.isSymbolicLink()).toBe(true);
    expect(leaf.target).toBe(join(root, 'lobby/server.properties'));
    expect(leaf.targetStats?.isFile()).toBe(true);
  });

  test('inspectLeaf of a missing entry', async () => {
    const leaf = await inspectLeaf(root, join(root, 'lobby'), 'fresh.txt', 'lobby/fresh.txt');
    expect(leaf.entry).toBeNull();
    expect(leaf.target).toBe(join(root, 'lobby/fresh.txt'));
  });
});

test('isInside compares whole segments', () => {
  expect(isInside('/a/scope', '/a/scope')).toBe(true);
  expect(isInside('/a/scope', '/a/scope/x')).toBe(true);
  expect(isInside('/a/scope', '/a/scope-2/x')).toBe(false);
  expect(isInside('/a/scope', '/a')).toBe(false);
});

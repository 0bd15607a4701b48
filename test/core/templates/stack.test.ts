import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError } from '../../../src/errors';
import { resolveTemplateStack } from '../../../src/core/templates/stack';
import { assertTemplateName, templateDir } from '../../../src/core/templates/template-name';
import { provisionStack } from '../../../src/core/templates/provision';
import { group, readTree, removeTempDirs, tempDir, writeTree } from './fixtures';

afterEach(removeTempDirs);

function caught(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('template stack', () => {
  test('group stack in order, then the global overlay last for the Paper family', () => {
    const root = tempDir();
    for (const name of ['base', 'lobby', 'global', 'global_proxy']) mkdirSync(join(root, name));
    for (const software of ['PAPER', 'PUFFERFISH', 'PURPUR', 'LEAF', 'FOLIA'] as const) {
      const layers = resolveTemplateStack(root, group('Lobby', software, { templates: ['base', 'lobby'] }));
      expect(layers.map((l) => [l.name, l.overlay])).toEqual([['base', false], ['lobby', false], ['global', true]]);
      expect(layers[0]!.dir).toBe(join(root, 'base'));
    }
  });

  test('the proxy gets global_proxy, not global; modded and custom kinds get no overlay', () => {
    const root = tempDir();
    for (const name of ['Proxy', 'Mods', 'global', 'global_proxy']) mkdirSync(join(root, name));
    expect(resolveTemplateStack(root, group('Proxy', 'VELOCITY')).map((l) => l.name)).toEqual(['Proxy', 'global_proxy']);
    for (const software of ['FABRIC', 'FORGE', 'NEOFORGE', 'CUSTOM'] as const) {
      expect(resolveTemplateStack(root, group('Mods', software)).map((l) => l.name)).toEqual(['Mods']);
    }
  });

  test('an overlay folder that does not exist is left out', () => {
    const root = tempDir();
    mkdirSync(join(root, 'Proxy'));
    expect(resolveTemplateStack(root, group('Proxy', 'VELOCITY')).map((l) => l.name)).toEqual(['Proxy']);
    expect(resolveTemplateStack(root, group('Proxy', 'PAPER')).map((l) => l.name)).toEqual(['Proxy']);
  });

  test('`template` is used when `templates` is empty', () => {
    const root = tempDir();
    mkdirSync(join(root, 'shared'));
    expect(resolveTemplateStack(root, group('Game', 'PAPER', { template: 'shared' })).map((l) => l.name)).toEqual(['shared']);
  });

  test('a missing named template is TEMPLATE_NOT_FOUND naming it', () => {
    const root = tempDir();
    mkdirSync(join(root, 'base'));
    const stacked = caught(() => resolveTemplateStack(root, group('Game', 'PAPER', { templates: ['base', 'missing'] })));
    expect(stacked.errorCode).toBe('TEMPLATE_NOT_FOUND');
    expect(stacked.status).toBe(404);
    expect(stacked.message).toContain('"missing"');
    const single = caught(() => resolveTemplateStack(root, group('Game', 'PAPER', { template: 'other' })));
    expect(single.errorCode).toBe('TEMPLATE_NOT_FOUND');
    expect(existsSync(join(root, 'other'))).toBe(false);
  });

  test('the implicit default template (the group name) is created empty', () => {
    const root = tempDir();
    for (const template of ['', 'Fresh']) {
      const layers = resolveTemplateStack(root, group('Fresh', 'FABRIC', { template }));
      expect(layers.map((l) => l.name)).toEqual(['Fresh']);
      expect(statSync(join(root, 'Fresh')).isDirectory()).toBe(true);
    }
  });

  test.each(['../etc', '..', '.', 'a/b', 'a\\b', '/etc', 'C:evil', 'x..y', 'nul\0byte', ''])('template name %p is refused as path traversal', (name) => {
    const root = tempDir();
    expect(caught(() => assertTemplateName(name)).errorCode).toBe('PATH_TRAVERSAL');
    expect(caught(() => templateDir(root, name)).errorCode).toBe('PATH_TRAVERSAL');
    expect(caught(() => resolveTemplateStack(root, group('G', 'PAPER', { templates: [name] }))).errorCode).toBe('PATH_TRAVERSAL');
  });

  test('ordinary names with dots and dashes pass', () => {
    const root = tempDir();
    expect(templateDir(root, 'lobby-1.21_v2')).toBe(join(root, 'lobby-1.21_v2'));
  });
});

describe('stack overwrite semantics (provisioned)', () => {
  test('later templates win, the global overlay wins last', async () => {
    const root = tempDir();
    writeTree(join(root, 'base'), { 'server.properties': 'base', 'plugins/a.yml': 'base', 'only-base.txt': 'base' });
    writeTree(join(root, 'lobby'), { 'server.properties': 'lobby', 'plugins/a.yml': 'lobby', 'only-lobby.txt': 'lobby' });
    writeTree(join(root, 'global'), { 'plugins/a.yml': 'global' });
    writeTree(join(root, 'global_proxy'), { 'plugins/a.yml': 'global_proxy' });
    const layers = resolveTemplateStack(root, group('Lobby', 'PAPER', { templates: ['base', 'lobby'] }));
    const work = join(tempDir(), 'work');
    await provisionStack(layers.map((l) => l.dir), work, { hardlinks: false });
    expect(readTree(work)).toEqual({ 'server.properties': 'lobby', 'plugins/a.yml': 'global', 'only-base.txt': 'base', 'only-lobby.txt': 'lobby' });
  });

  test('a proxy gets global_proxy files and none from global', async () => {
    const root = tempDir();
    writeTree(join(root, 'Proxy'), { 'velocity.toml': 'proxy' });
    writeTree(join(root, 'global'), { 'from-global.txt': 'x', 'velocity.toml': 'global' });
    writeTree(join(root, 'global_proxy'), { 'plugins/p.jar': 'gp' });
    const work = join(tempDir(), 'work');
    await provisionStack(resolveTemplateStack(root, group('Proxy', 'VELOCITY')).map((l) => l.dir), work, { hardlinks: false });
    expect(readTree(work)).toEqual({ 'velocity.toml': 'proxy', 'plugins/p.jar': 'gp' });
  });

  test('a later file replaces an earlier folder and a later folder an earlier file', async () => {
    const root = tempDir();
    writeTree(join(root, 'a'), { 'x/inner.txt': 'a', y: 'a-file' });
    writeTree(join(root, 'b'), { x: 'b-file', 'y/inner.txt': 'b' });
    const work = join(tempDir(), 'work');
    await provisionStack([join(root, 'a'), join(root, 'b')], work, { hardlinks: false });
    expect(readTree(work)).toEqual({ x: 'b-file', 'y/inner.txt': 'b' });
  });
});

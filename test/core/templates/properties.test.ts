import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { acceptEula, applyServicePatches, patchServerProperties } from '../../../src/core/templates/patches';
import { setProperties } from '../../../src/core/templates/properties-text';
import { removeTempDirs, tempDir, writeTree } from './fixtures';

afterEach(removeTempDirs);

const SERVER_PROPERTIES = `#Minecraft server properties
#Mon Jan 01 00:00:00 UTC 2024
enable-jmx-monitoring=false
rcon.port=25575
level-seed=
gamemode=survival

# a hand-written note
server-port = 25565
motd=A Minecraft Server \\u00A7 with escapes
online-mode:true
view-distance=10
`;

describe('server.properties', () => {
  test('sets port and online-mode, keeping every other line, comment and blank', () => {
    const out = setProperties(SERVER_PROPERTIES, { 'server-port': '30001', 'online-mode': 'false' });
    const expected = SERVER_PROPERTIES.replace('server-port = 25565', 'server-port=30001').replace('online-mode:true', 'online-mode=false');
    expect(out).toBe(expected);
  });

  test('missing keys are appended; a file without a trailing newline gets one', () => {
    expect(setProperties('motd=hi', { 'server-port': '1', 'online-mode': 'false' })).toBe('motd=hi\nserver-port=1\nonline-mode=false\n');
    expect(setProperties('', { eula: 'true' })).toBe('eula=true\n');
  });

  test('every duplicate is set (Java keeps the last one)', () => {
    expect(setProperties('server-port=1\nx=y\nserver-port=2\n', { 'server-port': '3' })).toBe('server-port=3\nx=y\nserver-port=3\n');
  });

  test('CRLF files stay CRLF; continuation lines of a replaced value go with it', () => {
    expect(setProperties('# c\r\nmotd=a \\\r\n  b\r\nserver-port=1\r\n', { motd: 'x' })).toBe('# c\r\nmotd=x\r\nserver-port=1\r\n');
  });

  test('comments that look like keys are not keys', () => {
    expect(setProperties('#server-port=1\n! server-port=2\n', { 'server-port': '3' })).toBe('#server-port=1\n! server-port=2\nserver-port=3\n');
  });

  test('values that would need escaping are refused', () => {
    expect(() => setProperties('', { motd: 'two\nlines' })).toThrow('line breaks');
  });

  test('the file is created when absent and patched in place when present', () => {
    const work = tempDir();
    expect(patchServerProperties(work, 30001)).toBe('server.properties');
    expect(readFileSync(join(work, 'server.properties'), 'utf8')).toBe('server-port=30001\nonline-mode=false\n');
    writeTree(work, { 'server.properties': SERVER_PROPERTIES });
    patchServerProperties(work, 30002);
    const text = readFileSync(join(work, 'server.properties'), 'utf8');
    expect(text).toContain('# a hand-written note\nserver-port=30002\nmotd=A Minecraft Server \\u00A7 with escapes\nonline-mode=false\n');
    // Unchanged content is not rewritten.
    expect(patchServerProperties(work, 30002)).toBeNull();
  });
});

describe('eula.txt', () => {
  test('accepted, keeping the comment; created when absent', () => {
    const work = tempDir();
    writeTree(work, { 'eula.txt': '#By changing the setting below to TRUE you are indicating your agreement.\n#Mon Jan 01\neula=false\n' });
    acceptEula(work);
    expect(readFileSync(join(work, 'eula.txt'), 'utf8')).toBe('#By changing the setting below to TRUE you are indicating your agreement.\n#Mon Jan 01\neula=true\n');
    const fresh = tempDir();
    acceptEula(fresh);
    expect(readFileSync(join(fresh, 'eula.txt'), 'utf8')).toEndWith('\neula=true\n');
  });

  test('backends get eula.txt and server.properties; the proxy gets neither', () => {
    const secret = 's3cret';
    for (const software of ['PAPER', 'FABRIC', 'FORGE', 'CUSTOM'] as const) {
      const work = tempDir();
      const written = applyServicePatches(work, { software, port: 30001, forwarding: 'modern', secret });
      expect(written).toContain('eula.txt');
      expect(readFileSync(join(work, 'eula.txt'), 'utf8')).toContain('eula=true');
      expect(readFileSync(join(work, 'server.properties'), 'utf8')).toBe('server-port=30001\nonline-mode=false\n');
      // Paper's forwarding files only for the Paper family.
      expect(existsSync(join(work, 'config/paper-global.yml'))).toBe(software === 'PAPER');
    }
    const proxy = tempDir();
    const written = applyServicePatches(proxy, { software: 'VELOCITY', port: 25565, forwarding: 'modern', secret, servers: [] });
    expect(written.sort()).toEqual(['forwarding.secret', 'velocity.toml']);
    expect(existsSync(join(proxy, 'eula.txt'))).toBe(false);
    expect(existsSync(join(proxy, 'server.properties'))).toBe(false);
  });
});

import { afterEach, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { findForgeArgsFile } from '../../../src/core/software/forge-args';
import { checkJar } from '../../../src/core/software/jar-check';

const cleanups: (() => void)[] = [];
afterEach(() => cleanups.splice(0).forEach((f) => f()));

function workDir(files: string[] = [], dirs: string[] = []): string {
  // Not test/support's tempDir: that module loads the whole controller.
  const dir = mkdtempSync(join(tmpdir(), 'svc-software-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const file of files) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), 'x');
  }
  for (const folder of dirs) mkdirSync(join(dir, folder), { recursive: true });
  return dir;
}

const FORGE = 'libraries/net/minecraftforge/forge';
const NEO = 'libraries/net/neoforged/neoforge';

describe('findForgeArgsFile', () => {
  test('finds an installed Forge build, relative with / separators', () => {
    const dir = workDir([`${FORGE}/1.20.1-47.2.0/unix_args.txt`, `${FORGE}/1.20.1-47.2.0/win_args.txt`]);
    expect(findForgeArgsFile(dir)).toBe(`${FORGE}/1.20.1-47.2.0/unix_args.txt`);
    expect(findForgeArgsFile(dir, 'FORGE')).toBe(`${FORGE}/1.20.1-47.2.0/unix_args.txt`);
    expect(findForgeArgsFile(dir, 'NEOFORGE')).toBeNull();
  });

  test('finds NeoForge, and the 1.20.1 NeoForge layout', () => {
    expect(findForgeArgsFile(workDir([`${NEO}/21.1.77/unix_args.txt`]))).toBe(`${NEO}/21.1.77/unix_args.txt`);
    const legacy = 'libraries/net/neoforged/forge/1.20.1-47.1.106/unix_args.txt';
    expect(findForgeArgsFile(workDir([legacy]), 'NEOFORGE')).toBe(legacy);
  });

  test('picks the newest build by natural order', () => {
    const dir = workDir([
      `${FORGE}/1.20.1-47.2.3/unix_args.txt`,
      `${FORGE}/1.20.1-47.2.20/unix_args.txt`,
      `${FORGE}/1.20.1-47.2.100-beta/other.txt`,
    ]);
    expect(findForgeArgsFile(dir)).toBe(`${FORGE}/1.20.1-47.2.20/unix_args.txt`);
  });

  test('null for an empty directory, a build without the file, or a folder named unix_args.txt', () => {
    expect(findForgeArgsFile(workDir())).toBeNull();
    expect(findForgeArgsFile(workDir([`${FORGE}/1.20.1-47.2.0/win_args.txt`]))).toBeNull();
    expect(findForgeArgsFile(workDir([], [`${FORGE}/1.20.1-47.2.0/unix_args.txt`]))).toBeNull();
    expect(findForgeArgsFile(join(workDir(), 'missing'))).toBeNull();
  });
});

describe('checkJar', () => {
  test('null when the default jar is there', () => {
    expect(checkJar(workDir(['server.jar']), 'PAPER')).toBeNull();
    expect(checkJar(workDir(['server.jar']), 'VELOCITY')).toBeNull();
  });

  test('the diagnosis names the jar, the directory and the kind', () => {
    const dir = workDir(['paper.jar']);
    expect(checkJar(dir, 'PAPER')).toBe(
      `server.jar is missing in ${dir}: put the PAPER jar there or set jarName; svc downloads it into the group's first template when the controller prepares a start`,
    );
  });

  test('a jarName is looked for instead of server.jar', () => {
    const dir = workDir(['paper.jar']);
    expect(checkJar(dir, 'PAPER', 'paper.jar')).toBeNull();
    expect(checkJar(dir, 'PAPER', 'purpur.jar')).toContain('purpur.jar is missing');
  });

  test('a folder named like the jar does not count', () => {
    expect(checkJar(workDir([], ['server.jar']), 'PAPER')).toContain('server.jar is missing');
  });

  test('CUSTOM needs a jarName, then that jar', () => {
    const dir = workDir(['server.jar', 'custom.jar']);
    expect(checkJar(dir, 'CUSTOM')).toContain('CUSTOM needs jarName');
    expect(checkJar(dir, 'CUSTOM', 'custom.jar')).toBeNull();
    expect(checkJar(dir, 'CUSTOM', 'other.jar')).toContain('other.jar is missing');
  });

  test('a jarName outside the work directory is refused, even when the file exists', () => {
    const dir = workDir(['inner/server.jar']);
    expect(checkJar(join(dir, 'inner'), 'PAPER', '../inner/server.jar')).toContain('must be a relative path');
  });

  test('modern Forge passes with an installed args file and no jar', () => {
    const dir = workDir([`${FORGE}/1.20.1-47.2.0/unix_args.txt`]);
    expect(checkJar(dir, 'FORGE', null, '1.20.1')).toBeNull();
    expect(checkJar(dir, 'FORGE')).toBeNull();
    // a NeoForge group does not accept a Forge install
    expect(checkJar(dir, 'NEOFORGE', null, '1.21.1')).toContain('NEOFORGE installer');
  });

  test('old Forge needs the jar even when an args file is there', () => {
    const dir = workDir([`${FORGE}/1.20.1-47.2.0/unix_args.txt`]);
    expect(checkJar(dir, 'FORGE', null, '1.12.2')).toBe(
      `server.jar is missing in ${dir}: put the FORGE jar there or set jarName; svc runs the installer into the group's first template when the controller prepares a start (a failed install fails that start with the reason)`,
    );
    expect(checkJar(workDir(['server.jar']), 'FORGE', null, '1.12.2')).toBeNull();
  });

  test('modern Forge without args file or jar says how to install', () => {
    const dir = workDir();
    const message = checkJar(dir, 'FORGE', null, '1.20.1');
    expect(message).toContain('--installServer');
    expect(message).toContain(dir);
    expect(message).toContain("svc runs the installer into the group's first template when the controller prepares a start");
    expect(checkJar(dir, 'CUSTOM', 'custom.jar')).toEndWith('svc fetches nothing for CUSTOM');
    expect(checkJar(workDir(['server.jar']), 'FORGE', null, '1.20.1')).toBeNull();
  });
});

import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import {
  findSoftware,
  requireSoftware,
  SOFTWARE,
  SOFTWARE_NAMES,
  SoftwareListEntrySchema,
  SoftwareNameSchema,
  softwareList,
  type SoftwareName,
  type TemplateOverlay,
} from '../../../src/core/software/kinds';
import { catchApiError } from './catch-error';

describe('software kinds', () => {
  // name, proxy, loader version, custom jar, modded, ready pattern, timeout s, overlay, stop, jar
  const rows: [SoftwareName, boolean, boolean, boolean, boolean, string, number, TemplateOverlay | null, string, string | null][] = [
    ['VELOCITY', true, false, false, false, 'Done \\(', 180, 'global_proxy', 'end', 'server.jar'],
    ['PAPER', false, false, false, false, 'Done \\(', 180, 'global', 'stop', 'server.jar'],
    ['PURPUR', false, false, false, false, 'Done \\(', 180, 'global', 'stop', 'server.jar'],
    ['FOLIA', false, false, false, false, 'Done \\(', 180, 'global', 'stop', 'server.jar'],
    ['PUFFERFISH', false, false, false, false, 'Done \\(', 180, 'global', 'stop', 'server.jar'],
    ['LEAF', false, false, false, false, 'Done \\(', 180, 'global', 'stop', 'server.jar'],
    ['FABRIC', false, true, false, true, 'Done \\(', 240, null, 'stop', 'server.jar'],
    ['FORGE', false, true, false, true, 'Done \\(|For help, type', 240, null, 'stop', 'server.jar'],
    ['NEOFORGE', false, true, false, true, 'Done \\(|For help, type', 240, null, 'stop', 'server.jar'],
    ['CUSTOM', false, false, true, false, 'Done \\(', 180, null, 'stop', null],
  ];

  test('the table covers every kind', () => {
    expect(rows.map((r) => r[0])).toEqual([...SOFTWARE_NAMES]);
  });

  for (const [name, isProxy, loader, custom, isModded, ready, timeoutS, overlay, stop, jar] of rows) {
    test(name, () => {
      expect(SOFTWARE[name]).toEqual({
        name,
        isProxy,
        needsModloaderVersion: loader,
        needsCustomJar: custom,
        isModded,
        readyPattern: ready,
        readyTimeoutMs: timeoutS * 1000,
        templateOverlay: overlay,
        stopCommand: stop,
        defaultJar: jar,
      });
    });
  }

  test('ready patterns match the real ready lines and not earlier ones', () => {
    const paper = new RegExp(SOFTWARE.PAPER.readyPattern);
    expect(paper.test('[12:00:01 INFO]: Done (3.214s)! For help, type "help"')).toBe(true);
    expect(paper.test('[12:00:00 INFO]: Preparing level "world"')).toBe(false);
    const velocity = new RegExp(SOFTWARE.VELOCITY.readyPattern);
    expect(velocity.test('[12:00:01 INFO]: Done (1.02s)!')).toBe(true);
    const forge = new RegExp(SOFTWARE.FORGE.readyPattern);
    expect(forge.test('[Server thread/INFO] [minecraft/DedicatedServer]: For help, type "help"')).toBe(true);
    expect(forge.test('[Server thread/INFO] [minecraft/DedicatedServer]: Starting minecraft server')).toBe(false);
  });
});

describe('lookup', () => {
  test('findSoftware is case-insensitive and trims', () => {
    expect(findSoftware('paper')?.name).toBe('PAPER');
    expect(findSoftware(' NeoForge ')?.name).toBe('NEOFORGE');
    expect(findSoftware('spigot')).toBeUndefined();
    expect(findSoftware('toString')).toBeUndefined();
  });

  test('requireSoftware throws SOFTWARE_UNKNOWN (404) for unknown names', () => {
    expect(requireSoftware('velocity').name).toBe('VELOCITY');
    const error = catchApiError(() => requireSoftware('bungeecord'));
    expect(error.errorCode).toBe('SOFTWARE_UNKNOWN');
    expect(error.status).toBe(404);
    expect(error.message).toContain('bungeecord');
  });

  test('the schema accepts exactly the upper-case names', () => {
    for (const name of SOFTWARE_NAMES) expect(Value.Check(SoftwareNameSchema, name)).toBe(true);
    expect(Value.Check(SoftwareNameSchema, 'paper')).toBe(false);
    expect(Value.Check(SoftwareNameSchema, 'SPIGOT')).toBe(false);
  });
});

describe('softwareList', () => {
  test('is the GET /api/software shape, one entry per kind', () => {
    const list = softwareList();
    expect(list).toHaveLength(SOFTWARE_NAMES.length);
    for (const entry of list) {
      expect(Value.Check(SoftwareListEntrySchema, entry)).toBe(true);
      expect(Object.keys(entry).sort()).toEqual(['isProxy', 'name', 'needsCustomJar', 'needsModloaderVersion']);
    }
    expect(list.find((e) => e.name === 'VELOCITY')).toEqual({ name: 'VELOCITY', needsModloaderVersion: false, needsCustomJar: false, isProxy: true });
    expect(list.find((e) => e.name === 'FORGE')).toEqual({ name: 'FORGE', needsModloaderVersion: true, needsCustomJar: false, isProxy: false });
    expect(list.find((e) => e.name === 'CUSTOM')).toEqual({ name: 'CUSTOM', needsModloaderVersion: false, needsCustomJar: true, isProxy: false });
  });
});

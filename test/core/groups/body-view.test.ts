import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { bodyValues, groupDefaults, GroupPatchSchema, NESTED_FIELDS, type Group, type GroupPatch } from '../../../src/core/groups/model';
import { groupView, GroupViewSchema } from '../../../src/core/groups/view';

const group: Group = { ...groupDefaults(), name: 'Lobby', software: 'PAPER', version: '1.21.4', type: 'STATIC', memory: '2G', maxPlayers: 20, warmPoolSize: 1 };

describe('nested view objects', () => {
  test("carry exactly the reference's fields, derived from the field table", () => {
    expect(NESTED_FIELDS).toEqual({
      resources: ['memory', 'maxPlayers'],
      scaling: ['minInstances', 'maxInstances', 'playersPerInstance', 'scaleThreshold', 'idleTimeout'],
      lifecycle: ['stopOnEmpty', 'restartOnCrash', 'maxRestarts'],
    });
  });

  test('a view has the flat fields, the nested copies and static, and matches its schema', () => {
    const view = groupView(group, { activeInstances: 2, modIds: ['lithium'] });
    expect(view).toMatchObject({ ...group, static: true, activeInstances: 2, modIds: ['lithium'] });
    expect(view.resources).toEqual({ memory: '2G', maxPlayers: 20 });
    expect(view.scaling).toEqual({ minInstances: 1, maxInstances: 4, playersPerInstance: 40, scaleThreshold: 0.8, idleTimeout: 0 });
    expect(view.lifecycle).toEqual({ stopOnEmpty: false, restartOnCrash: true, maxRestarts: 5 });
    expect(Value.Check(GroupViewSchema, view)).toBe(true);
    expect(groupView({ ...group, type: 'LOBBY' }, { activeInstances: 0, modIds: [] }).static).toBe(false);
  });
});

describe('bodyValues', () => {
  test.each([
    ['flat fields as given', { maxPlayers: 3, jarName: '' }, { maxPlayers: 3, jarName: '' }],
    ['memory "" is not given', { memory: '', maxRestarts: 1 }, { maxRestarts: 1 }],
    ['nested values flatten', { resources: { memory: '4G' }, lifecycle: { stopOnEmpty: true } }, { memory: '4G', stopOnEmpty: true }],
    ['a flat field beside its nested form wins', { resources: { maxPlayers: 1, memory: '4G' }, maxPlayers: 2, memory: '' }, { maxPlayers: 2, memory: '4G' }],
    ['nothing outside the field table', { docker: { enabled: true }, activeInstances: 3, scaling: { warmPoolSize: 5 } }, {}],
  ] as const)('%s', (_what, body, expected) => {
    expect(bodyValues(body as GroupPatch)).toEqual(expected);
  });

  test('the PUT body schema takes an empty object, "" for memory, and the nested objects', () => {
    expect(Value.Check(GroupPatchSchema, {})).toBe(true);
    expect(Value.Check(GroupPatchSchema, { memory: '', resources: { memory: '' }, scaling: {}, lifecycle: { maxRestarts: 2 } })).toBe(true);
    expect(Value.Check(GroupPatchSchema, { memory: 'lots' })).toBe(false);
    expect(Value.Check(GroupPatchSchema, { scaling: { minInstances: -1 } })).toBe(false);
  });
});

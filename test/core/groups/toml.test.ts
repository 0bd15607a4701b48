import { describe, expect, test } from 'bun:test';
import { parse as parseToml } from 'smol-toml';
import { groupDefaults, type Group } from '../../../src/core/groups/model';
import { parseGroupToml, renderGroupToml } from '../../../src/core/groups/toml';

const lobby: Group = { ...groupDefaults(), name: 'Lobby', template: 'Lobby', software: 'PAPER', version: '1.21.1', jvmArgs: ['-Dfoo=bar'], startCommand: ['./run.sh', '{port}'] };

describe('group TOML form', () => {
  test('is nested under [group] with sub-tables in field order', () => {
    const text = renderGroupToml(lobby);
    const raw = parseToml(text) as { group: Record<string, unknown> & { resources: unknown; scaling: Record<string, unknown>; jvm: unknown } };
    expect(raw.group.name).toBe('Lobby');
    expect(raw.group.start_command).toEqual(['./run.sh', '{port}']);
    expect(raw.group.resources).toEqual({ memory: '1G', max_players: 50 });
    expect(raw.group.scaling.min_instances).toBe(1);
    expect(raw.group.jvm).toEqual({ args: ['-Dfoo=bar'], optimize: true });
    const headers = text.split('\n').filter((l) => l.startsWith('['));
    expect(headers).toEqual(['[group]', '[group.resources]', '[group.scaling]', '[group.lifecycle]', '[group.jvm]', '[group.placement]', '[group.sync]']);
  });

  test('round trips byte-stable', () => {
    const text = renderGroupToml(lobby);
    const { group, warnings } = parseGroupToml(text, 'Lobby.toml', 'Lobby');
    expect(warnings).toEqual([]);
    expect(group).toEqual(lobby);
    expect(renderGroupToml(group)).toBe(text);
  });

  test('a minimal hand-written file loads with defaults, name from the file name', () => {
    const { group } = parseGroupToml('[group]\nsoftware = "VELOCITY"\nversion = "3.3.0"\n[group.scaling]\nmax_instances = 2\n', 'Proxy.toml', 'Proxy');
    expect(group).toEqual({ ...groupDefaults(), name: 'Proxy', template: 'Proxy', software: 'VELOCITY', version: '3.3.0', maxInstances: 2 });
  });

  test('unknown keys are warnings', () => {
    const { warnings } = parseGroupToml('[group]\nsoftware = "PAPER"\nversion = "1.21"\ncolour = "red"\n[group.scaling]\nmax = 3\n[extra]\nx = 1\n', 'G.toml', 'G');
    expect(warnings).toEqual(['G.toml: unknown top-level key extra (ignored)', 'G.toml: unknown key group.colour (ignored)', 'G.toml: unknown key group.scaling.max (ignored)']);
  });

  test.each([
    ['[group\n', 'G.toml:1:'],
    ['x = 1\n', 'G.toml: the [group] table is missing'],
    ['[group]\nversion = "1.21"\n', 'G.toml: [group] software is required'],
    ['[group]\nsoftware = "SPIGOT"\nversion = "1.21"\n', 'G.toml: [group] software: expected one of "VELOCITY", "PAPER"'],
    ['[group]\nsoftware = "PAPER"\nversion = "latest"\n', 'G.toml: [group] version: expected a string matching'],
    ['[group]\nsoftware = "PAPER"\nversion = "1.21"\n[group.scaling]\nmin_instances = "two"\n', 'G.toml: [group.scaling] min_instances: expected an integer between 0 and 1000, got "two"'],
    ['[group]\nsoftware = "PAPER"\nversion = "1.21"\n[group.scaling]\nmin_instances = 5\nmax_instances = 2\n', 'G.toml: "minInstances" (5) must be at most "maxInstances" (2)'],
    ['[group]\nname = "Other"\nsoftware = "PAPER"\nversion = "1.21"\n', 'G.toml: [group] name "Other" differs from the file name "G.toml"'],
    ['[group]\nsoftware = "PAPER"\nversion = "1.21"\nready_pattern = "Done ("\n', 'G.toml: "readyPattern" is not a valid regular expression'],
  ])('a broken file names itself and the key: %p', (text, message) => {
    expect(() => parseGroupToml(text, 'G.toml', 'G')).toThrow(message);
  });
});

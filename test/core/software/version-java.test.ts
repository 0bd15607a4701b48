import { describe, expect, test } from 'bun:test';
import { Value } from '@sinclair/typebox/value';
import { DEFAULT_JAVA, javaBinaryFor, javaMajorFor, selectJava, type JavaConfig } from '../../../src/core/software/java';
import {
  compareGameVersions,
  GameVersionSchema,
  isAtLeast,
  parseGameVersion,
  requireGameVersion,
  type GameVersion,
} from '../../../src/core/software/version';
import { catchApiError } from './catch-error';

function v(text: string): GameVersion {
  const parsed = parseGameVersion(text);
  if (!parsed) throw new Error(`test version ${text} does not parse`);
  return parsed;
}

describe('parseGameVersion', () => {
  test.each([
    ['1.20.4', { major: 1, minor: 20, patch: 4, suffix: '' }],
    ['1.21', { major: 1, minor: 21, patch: 0, suffix: '' }],
    ['1.8.8', { major: 1, minor: 8, patch: 8, suffix: '' }],
    ['1.20.5-pre1', { major: 1, minor: 20, patch: 5, suffix: 'pre1' }],
    ['1.21-rc-1', { major: 1, minor: 21, patch: 0, suffix: 'rc-1' }],
  ])('%s', (text, expected) => {
    expect(parseGameVersion(text)).toEqual(expected);
    expect(Value.Check(GameVersionSchema, text)).toBe(true);
  });

  test.each(['', '1', 'latest', '24w14a', '1.20.4.1', 'v1.21', '1.21 ', '1..2'])('rejects %p', (text) => {
    expect(parseGameVersion(text)).toBeNull();
    expect(Value.Check(GameVersionSchema, text)).toBe(false);
  });

  test('requireGameVersion throws SERVICE_START_FAILED naming the software and version', () => {
    expect(requireGameVersion('1.21', 'PAPER')).toEqual(v('1.21'));
    const error = catchApiError(() => requireGameVersion('latest', 'PAPER'));
    expect(error.errorCode).toBe('SERVICE_START_FAILED');
    expect(error.message).toContain('PAPER version "latest"');
  });
});

describe('version order', () => {
  test('sorts numerically, a pre-release before its release', () => {
    const sorted = ['1.21', '1.8.8', '1.20.5', '1.20.10', '1.20.5-pre2', '1.20.5-pre10', '1.20.4', '1.21.0-rc1']
      .map(v)
      .sort(compareGameVersions)
      .map((x) => `${x.major}.${x.minor}.${x.patch}${x.suffix ? `-${x.suffix}` : ''}`);
    expect(sorted).toEqual(['1.8.8', '1.20.4', '1.20.5-pre2', '1.20.5-pre10', '1.20.5', '1.20.10', '1.21.0-rc1', '1.21.0']);
  });

  test('a release is after its pre-releases, whichever side it is on', () => {
    expect(compareGameVersions(v('1.20.5'), v('1.20.5-pre1'))).toBeGreaterThan(0);
    expect(compareGameVersions(v('1.20.5-pre1'), v('1.20.5'))).toBeLessThan(0);
    expect(compareGameVersions(v('1.20.5-pre1'), v('1.20.4'))).toBeGreaterThan(0);
  });

  test('1.21 equals 1.21.0', () => {
    expect(compareGameVersions(v('1.21'), v('1.21.0'))).toBe(0);
  });

  test('isAtLeast goes by release: a pre-release is in its release band', () => {
    expect(isAtLeast(v('1.20.5-pre1'), '1.20.5')).toBe(true);
    expect(isAtLeast(v('1.20.4'), '1.20.5')).toBe(false);
    expect(isAtLeast(v('1.20.10'), '1.20.5')).toBe(true);
    expect(isAtLeast(v('2.0'), '1.20.5')).toBe(true);
    expect(isAtLeast(v('1.9'), '1.14')).toBe(false);
  });
});

describe('javaMajorFor', () => {
  test.each([
    ['1.8.8', 16],
    ['1.16.5', 16],
    ['1.17', 16],
    ['1.17.1', 16],
    ['1.18', 17],
    ['1.18.2', 17],
    ['1.20.4', 17],
    ['1.20.5-pre1', 21],
    ['1.20.5', 21],
    ['1.20.6', 21],
    ['1.21', 21],
    ['1.21.4', 21],
  ] as const)('PAPER %s → Java %d', (version, major) => {
    expect(javaMajorFor('PAPER', version)).toBe(major);
  });

  test('Velocity needs 21 whatever its own version', () => {
    expect(javaMajorFor('VELOCITY', '3.3.0-SNAPSHOT')).toBe(21);
    expect(javaMajorFor('VELOCITY', '1.8.8')).toBe(21);
  });

  test('modded kinds follow the game version too', () => {
    expect(javaMajorFor('FORGE', '1.12.2')).toBe(16);
    expect(javaMajorFor('FABRIC', '1.20.1')).toBe(17);
  });

  test('a backend without a Minecraft version cannot pick Java', () => {
    expect(catchApiError(() => javaMajorFor('PAPER', 'latest')).errorCode).toBe('SERVICE_START_FAILED');
  });
});

describe('java binary', () => {
  const config: JavaConfig = { java_16: '/opt/jdk16/bin/java', java_17: '', java_21: '  /opt/jdk21/bin/java ' };

  test('the [java] key of the major, trimmed; blank means java on PATH', () => {
    expect(javaBinaryFor(16, config)).toBe('/opt/jdk16/bin/java');
    expect(javaBinaryFor(17, config)).toBe(DEFAULT_JAVA);
    expect(DEFAULT_JAVA).toBe('java');
    expect(javaBinaryFor(21, config)).toBe('/opt/jdk21/bin/java');
  });

  test('a group javaPath wins; a blank one does not', () => {
    expect(javaBinaryFor(16, config, '/usr/lib/jvm/8/bin/java')).toBe('/usr/lib/jvm/8/bin/java');
    expect(javaBinaryFor(16, config, '  ')).toBe('/opt/jdk16/bin/java');
    expect(javaBinaryFor(16, config, null)).toBe('/opt/jdk16/bin/java');
  });

  test('selectJava picks by version, and skips the version check when the group names a binary', () => {
    expect(selectJava('PAPER', '1.8.8', config)).toBe('/opt/jdk16/bin/java');
    expect(selectJava('PAPER', '1.19.4', config)).toBe('java');
    expect(selectJava('VELOCITY', '3.4.0', config)).toBe('/opt/jdk21/bin/java');
    expect(selectJava('CUSTOM', 'whatever', config, '/my/java')).toBe('/my/java');
  });
});

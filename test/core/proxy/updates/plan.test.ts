import { describe, expect, test } from 'bun:test';
import { planUpdate, standing, type ProxyTarget } from '../../../../src/core/proxy/updates/plan';
import type { ProxyRelease } from '../../../../src/core/proxy/updates/releases';

const sha = (n: number) => n.toString(16).padStart(64, '0');

const release: ProxyRelease = {
  software: 'VELOCITY',
  version: '3.4.0-SNAPSHOT',
  build: 500,
  file: { upstream: 'PaperMC downloads service', url: 'http://x/velocity-500.jar', label: 'velocity 3.4.0-SNAPSHOT build 500', checksum: { algorithm: 'sha256', hex: sha(500) } },
  buildsBySha256: new Map([
    [sha(510), 510],
    [sha(500), 500],
    [sha(450), 450],
  ]),
};

const target = (version: string): ProxyTarget => ({ kind: 'group', name: 'Proxy', software: 'VELOCITY', version, jarPath: '/t/Proxy/server.jar', isStatic: false });

describe('standing', () => {
  test('by the version lists’ order', () => {
    expect(standing('3.3.0-SNAPSHOT', '3.4.0-SNAPSHOT')).toBe('behind');
    expect(standing('3.4.0-SNAPSHOT', '3.4.0-SNAPSHOT')).toBe('same');
    expect(standing('3.4.0-SNAPSHOT', '3.4.0')).toBe('behind');
    expect(standing('3.10.0', '3.9.0')).toBe('ahead');
  });
});

describe('planUpdate', () => {
  test('an older version moves to the release, whatever its jar', () => {
    expect(planUpdate(target('3.3.0-SNAPSHOT'), release, null)).toEqual({
      target: target('3.3.0-SNAPSHOT'),
      currentVersion: '3.3.0-SNAPSHOT',
      newVersion: '3.4.0-SNAPSHOT',
      version: '3.4.0-SNAPSHOT',
      file: release.file,
    });
  });

  test('a newer version (a pre-release on purpose) is left alone', () => {
    expect(planUpdate(target('3.5.0-SNAPSHOT'), release, null)).toBeNull();
  });

  test('the same version: a known older build is updated, named by build; the version stays', () => {
    const plan = planUpdate(target('3.4.0-SNAPSHOT'), release, sha(450));
    expect(plan).toMatchObject({ currentVersion: '3.4.0-SNAPSHOT build 450', newVersion: '3.4.0-SNAPSHOT build 500', version: '3.4.0-SNAPSHOT' });
  });

  test('the same version: no jar, the release itself, a newer build or an unknown jar are left alone', () => {
    expect(planUpdate(target('3.4.0-SNAPSHOT'), release, null)).toBeNull();
    expect(planUpdate(target('3.4.0-SNAPSHOT'), release, sha(500))).toBeNull();
    expect(planUpdate(target('3.4.0-SNAPSHOT'), release, sha(510))).toBeNull();
    expect(planUpdate(target('3.4.0-SNAPSHOT'), release, sha(7))).toBeNull();
  });
});

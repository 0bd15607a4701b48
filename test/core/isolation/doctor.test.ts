import { describe, expect, test } from 'bun:test';
import { isolationFindings } from '../../../src/core/doctor/isolation';
import type { Isolation } from '../../../src/core/isolation';

const base = 1_900_000_000;
const of = (isolation: Partial<Isolation>): Isolation => ({ setting: 'auto', uid: false, bwrap: false, reason: 'because', ...isolation });

describe('the doctor on isolation', () => {
  test('uid+bwrap, uid and bwrap are OK, naming the mode, the uid range and why', () => {
    const [layered] = isolationFindings(of({ uid: true, bwrap: true, reason: 'the controller can switch users, and a bubblewrap sandbox runs for the service uids' }), base);
    expect(layered).toMatchObject({ level: 'OK' });
    expect(layered!.message).toStartWith('isolation: uid+bwrap — ');
    expect(layered!.message).toContain('uids 1900000000–1916777215');
    expect(layered!.message).toContain('a bubblewrap sandbox runs for the service uids');
    expect(isolationFindings(of({ uid: true }), base)[0]!.message).toStartWith('isolation: uid — ');
    expect(isolationFindings(of({ bwrap: true }), base)[0]!.message).toStartWith('isolation: bwrap — ');
  });

  test('none on auto is a warning saying why neither applied, what is exposed, and how to get more', () => {
    const [finding] = isolationFindings(of({ reason: 'neither applies: the controller cannot switch users (it runs as uid 1000 without CAP_SETUID), and no bubblewrap sandbox runs (bwrap is not installed)' }), base);
    expect(finding!.level).toBe('WARN');
    expect(finding!.message).toStartWith('isolation: none — neither applies: ');
    expect(finding!.message).toContain('bwrap is not installed');
    expect(finding!.message).toContain('can read data/api-token, svc.toml, the database');
    expect(finding!.hint).toContain('apt-get install bubblewrap');
  });

  test('none chosen in the config is a warning too, pointing back at auto', () => {
    const [finding] = isolationFindings(of({ setting: 'none', reason: 'isolation = "none" in [services]' }), base);
    expect(finding!.level).toBe('WARN');
    expect(finding!.message).toContain('[services] isolation = "none"');
    expect(finding!.hint).toBe('set [services] isolation = "auto" in svc.toml and restart');
  });
});

describe('the doctor on the nodes\' isolation', () => {
  test('a node without isolation is a warning; one that reports its mode is named; an old agent that says nothing adds nothing', async () => {
    const { clusterFindings } = await import('../../../src/core/doctor/runtime-checks');
    const findings = clusterFindings({
      list: () => [
        { nodeId: 'a', connected: true, isolation: 'uid+bwrap' },
        { nodeId: 'b', connected: true, isolation: 'none' },
        { nodeId: 'c', connected: true, isolation: null },
      ],
    });
    expect(findings.map((f) => `${f.level} ${f.message.slice(0, 48)}`)).toEqual([
      'OK 3 of 3 node(s) online',
      'OK node a isolates its services: uid+bwrap',
      'WARN node b runs its services without isolation: any ',
    ]);
  });
});

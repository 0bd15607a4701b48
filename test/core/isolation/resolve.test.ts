import { describe, expect, test } from 'bun:test';
import { isolationLabel, IsolationUnavailable, resolveIsolation, type Check, type HostFacts, type IsolationSetting } from '../../../src/core/isolation/resolve';
import { ConfigError } from '../../../src/config/load';

const YES: Check = { ok: true };
const no = (why: string): Check => ({ ok: false, why });

interface Host {
  switchUsers: Check;
  reachable: Check;
  bwrap: Check;
  bwrapAsUid: Check;
}

/** Host facts from a row of the table; every fact asked is recorded, so the table also says which probes ran. */
function facts(row: Host) {
  const asked: string[] = [];
  const host: HostFacts = {
    switchUsers: () => (asked.push('switchUsers'), row.switchUsers),
    servicesReachable: () => (asked.push('reachable'), row.reachable),
    bwrapRuns: () => (asked.push('bwrap'), row.bwrap),
    bwrapRunsAsServiceUid: () => (asked.push('bwrapAsUid'), row.bwrapAsUid),
  };
  return { host, asked };
}

const ROOT: Host = { switchUsers: YES, reachable: YES, bwrap: YES, bwrapAsUid: YES };
const ROOT_NO_BWRAP: Host = { switchUsers: YES, reachable: YES, bwrap: no('bwrap is not installed'), bwrapAsUid: no('bwrap is not installed') };
const ROOT_UNREACHABLE: Host = { switchUsers: YES, reachable: no('/root (mode 700) is not searchable'), bwrap: YES, bwrapAsUid: YES };
const USER: Host = { switchUsers: no('it runs as uid 1000 without CAP_SETUID'), reachable: YES, bwrap: YES, bwrapAsUid: no('not asked') };
const USER_NO_BWRAP: Host = { switchUsers: no('it runs as uid 1000 without CAP_SETUID'), reachable: YES, bwrap: no('a probe sandbox failed: No permission to create new namespace'), bwrapAsUid: no('not asked') };

type Row = [IsolationSetting, Host, string | { error: RegExp }, string[]];

// setting, host, resolved label (or the refusal), the facts that were asked.
const TABLE: Row[] = [
  ['auto', ROOT, 'uid+bwrap', ['switchUsers', 'reachable', 'bwrapAsUid']],
  ['auto', ROOT_NO_BWRAP, 'uid', ['switchUsers', 'reachable', 'bwrapAsUid']],
  ['auto', ROOT_UNREACHABLE, 'none', ['switchUsers', 'reachable']],
  ['auto', USER, 'bwrap', ['switchUsers', 'bwrap']],
  ['auto', USER_NO_BWRAP, 'none', ['switchUsers', 'bwrap']],
  ['uid', ROOT, 'uid', ['switchUsers', 'reachable']],
  ['uid', ROOT_NO_BWRAP, 'uid', ['switchUsers', 'reachable']],
  ['uid', ROOT_UNREACHABLE, { error: /isolation = "uid": \/root \(mode 700\)/ }, ['switchUsers', 'reachable']],
  ['uid', USER, { error: /isolation = "uid": it runs as uid 1000/ }, ['switchUsers']],
  ['bwrap', ROOT, 'uid+bwrap', ['switchUsers', 'reachable', 'bwrapAsUid']],
  ['bwrap', ROOT_NO_BWRAP, { error: /does not run for a service uid: bwrap is not installed/ }, ['switchUsers', 'reachable', 'bwrapAsUid']],
  ['bwrap', ROOT_UNREACHABLE, { error: /as root the sandbox runs under each service's own uid/ }, ['switchUsers', 'reachable']],
  ['bwrap', USER, 'bwrap', ['switchUsers', 'bwrap']],
  ['bwrap', USER_NO_BWRAP, { error: /isolation = "bwrap": a probe sandbox failed/ }, ['switchUsers', 'bwrap']],
  ['none', ROOT, 'none', []],
  ['none', USER_NO_BWRAP, 'none', []],
];

describe('resolveIsolation', () => {
  for (const [setting, row, outcome, asked] of TABLE) {
    const host = row === ROOT ? 'root' : row === ROOT_NO_BWRAP ? 'root without bwrap' : row === ROOT_UNREACHABLE ? 'root, services unreachable' : row === USER ? 'a user with bwrap' : 'a user without bwrap';
    test(`${setting} on ${host} → ${typeof outcome === 'string' ? outcome : 'refused'}`, () => {
      const { host: hostFacts, asked: seen } = facts(row);
      if (typeof outcome === 'string') {
        const isolation = resolveIsolation(setting, hostFacts);
        expect<string>(isolationLabel(isolation)).toBe(outcome);
        expect(isolation.setting).toBe(setting);
        expect(isolation.reason.length).toBeGreaterThan(0);
      } else {
        let error: unknown;
        try {
          resolveIsolation(setting, hostFacts);
        } catch (caught) {
          error = caught;
        }
        expect(error).toBeInstanceOf(IsolationUnavailable);
        expect(error).toBeInstanceOf(ConfigError); // main exits 2: a configuration mistake, systemd does not restart it
        expect((error as Error).message).toMatch(outcome.error);
      }
      expect(seen).toEqual(asked);
    });
  }

  test('auto that gets none says why neither applied', () => {
    const { reason } = resolveIsolation('auto', facts(USER_NO_BWRAP).host);
    expect(reason).toContain('cannot switch users (it runs as uid 1000 without CAP_SETUID)');
    expect(reason).toContain('No permission to create new namespace');
  });

  test('a root controller never falls back to a sandbox of its own uid', () => {
    // bwrap works as root itself here, but as root it would hand the service root's access.
    const isolation = resolveIsolation('auto', facts({ ...ROOT_UNREACHABLE, bwrap: YES }).host);
    expect(isolation).toMatchObject({ uid: false, bwrap: false });
    expect(isolation.reason).toContain('a sandbox is never run as root');
    expect(isolation.hint).toContain('folders other users may search');
  });
});

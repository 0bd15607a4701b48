import { ConfigError } from '../../config/load';

/** `[services] isolation` in svc.toml (and agent.toml). */
export const ISOLATION_SETTINGS = ['auto', 'uid', 'bwrap', 'none'] as const;
export type IsolationSetting = (typeof ISOLATION_SETTINGS)[number];

/** What the services of this process run under, decided once at start. */
export interface Isolation {
  /** What the config asked for. */
  setting: IsolationSetting;
  /** Each service under its own unprivileged uid/gid (setpriv in the wrapper's inner exec). */
  uid: boolean;
  /** Each service in a bubblewrap sandbox: its own directory the only writable place, private /tmp and pid namespace. */
  bwrap: boolean;
  /** Why this and not more, in words for the log and the doctor. */
  reason: string;
  /** What would give more, when that is not the general advice (install bubblewrap, run as root). */
  hint?: string;
}

/** How the mode reads in a log line and the doctor: uid+bwrap, uid, bwrap or none. */
export function isolationLabel(isolation: Pick<Isolation, 'uid' | 'bwrap'>): 'uid+bwrap' | 'uid' | 'bwrap' | 'none' {
  if (isolation.uid) return isolation.bwrap ? 'uid+bwrap' : 'uid';
  return isolation.bwrap ? 'bwrap' : 'none';
}

/** The outcome of one host check: fine, or why not. */
export type Check = { ok: true } | { ok: false; why: string };

/**
 * What the host offers, each asked only when the resolver needs it (a bwrap probe starts a
 * process). Real probes: host.ts; tests pass constants.
 */
export interface HostFacts {
  /** euid 0, or every capability uid mode needs (CAP_SETUID, CAP_SETGID, CAP_CHOWN, CAP_KILL, CAP_DAC_OVERRIDE, CAP_FOWNER); and setpriv exists. */
  switchUsers(): Check;
  /** Every folder above the service directories can be searched by a uid that is neither owner nor group. */
  servicesReachable(): Check;
  /** A probe sandbox runs as this process's own user (`bwrap ... -- timeout 0 /bin/true`). */
  bwrapRuns(): Check;
  /** The same probe as one of the service uids (after setpriv). */
  bwrapRunsAsServiceUid(): Check;
}

/** The setting cannot be honoured on this host: the controller (or agent) refuses to start. */
export class IsolationUnavailable extends ConfigError {}

/**
 * Picks the mode for `setting` (DESIGN: chosen once at start, logged, shown by the doctor):
 *
 *   none   ─ none, with a doctor warning.
 *   uid    ─ a uid per service, nothing layered on top (the operator chose exactly that);
 *            refuses to start when the controller cannot switch users.
 *   bwrap  ─ the sandbox; when the controller could switch users (root) the sandbox also
 *            runs under the service's own uid, because bwrap started by root would give the
 *            service root's access to everything bound in. Refuses to start without it.
 *   auto   ─ uid, with bwrap layered on top when the sandbox runs for the service uids;
 *            else bwrap; else none with a doctor warning saying why neither applied.
 *            A root controller never falls back to a bwrap sandbox of its own uid.
 */
export function resolveIsolation(setting: IsolationSetting, facts: HostFacts): Isolation {
  if (setting === 'none') return { setting, uid: false, bwrap: false, reason: 'isolation = "none" in [services]' };

  const switchUsers = facts.switchUsers();
  if (setting === 'uid') {
    if (!switchUsers.ok) throw new IsolationUnavailable(`[services] isolation = "uid": ${switchUsers.why}`);
    const reachable = facts.servicesReachable();
    if (!reachable.ok) throw new IsolationUnavailable(`[services] isolation = "uid": ${reachable.why}`);
    return { setting, uid: true, bwrap: false, reason: 'isolation = "uid" in [services]: each service runs under its own uid' };
  }

  if (switchUsers.ok) {
    const reachable = facts.servicesReachable();
    if (!reachable.ok) {
      if (setting === 'bwrap') throw new IsolationUnavailable(`[services] isolation = "bwrap": as root the sandbox runs under each service's own uid, but ${reachable.why}`);
      return {
        setting,
        uid: false,
        bwrap: false,
        reason: `the controller can switch users, but ${reachable.why}; a sandbox is never run as root`,
        hint: 'keep the installation (and [paths] services, dedicated) under folders other users may search (mode 0711 or 0755), then restart',
      };
    }
    const sandbox = facts.bwrapRunsAsServiceUid();
    if (setting === 'bwrap') {
      if (!sandbox.ok) throw new IsolationUnavailable(`[services] isolation = "bwrap": the sandbox does not run for a service uid: ${sandbox.why}`);
      return { setting, uid: true, bwrap: true, reason: 'isolation = "bwrap" in [services]; the controller can switch users, so the sandbox also runs under each service\'s own uid' };
    }
    return sandbox.ok
      ? { setting, uid: true, bwrap: true, reason: 'the controller can switch users, and a bubblewrap sandbox runs for the service uids' }
      : { setting, uid: true, bwrap: false, reason: `the controller can switch users; no bubblewrap sandbox on top: ${sandbox.why}` };
  }

  const sandbox = facts.bwrapRuns();
  if (setting === 'bwrap') {
    if (!sandbox.ok) throw new IsolationUnavailable(`[services] isolation = "bwrap": ${sandbox.why}`);
    return { setting, uid: false, bwrap: true, reason: 'isolation = "bwrap" in [services]' };
  }
  return sandbox.ok
    ? { setting, uid: false, bwrap: true, reason: `the controller cannot switch users (${switchUsers.why}); a bubblewrap sandbox runs` }
    : { setting, uid: false, bwrap: false, reason: `neither applies: the controller cannot switch users (${switchUsers.why}), and no bubblewrap sandbox runs (${sandbox.why})` };
}

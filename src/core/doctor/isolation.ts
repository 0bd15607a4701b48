import { isolationLabel, type Isolation } from '../isolation/resolve';
import { UID_COUNT } from '../isolation/range';
import { ok, warn, type Finding } from './model';

const EXPOSED = 'any game server (and every plugin in it) can read data/api-token, svc.toml, the database, the cluster key and every other service\'s files, and write wherever svc can';

/**
 * The isolation mode services run under (`[services] isolation`, resolved at start): what it
 * is and why; a warning when it is none, saying what that exposes and how to get more.
 */
export function isolationFindings(isolation: Isolation, uidBase: number): Finding[] {
  const label = isolationLabel(isolation);
  const uids = `uids ${uidBase}–${uidBase + UID_COUNT - 1}, one per service name, kept in data/isolation-uids.json`;
  switch (label) {
    case 'uid+bwrap':
      return [ok(`isolation: uid+bwrap — each service runs under its own uid (${uids}) inside a bubblewrap sandbox (its own folder the only writable place, private /tmp and process list); ${isolation.reason}`)];
    case 'uid':
      return [ok(`isolation: uid — each service runs under its own uid (${uids}); its folder is 0700, the controller's files are owner-only; ${isolation.reason}`)];
    case 'bwrap':
      return [ok(`isolation: bwrap — each service runs in a bubblewrap sandbox that sees /usr, the Java runtime and its own folder (the one writable place), with a private /tmp and process list; ${isolation.reason}`)];
    default:
      return [
        isolation.setting === 'none'
          ? warn(`isolation: none — [services] isolation = "none": ${EXPOSED}`, 'set [services] isolation = "auto" in svc.toml and restart')
          : warn(`isolation: none — ${isolation.reason}: ${EXPOSED}`, isolation.hint ?? 'run the controller as root (each service gets its own uid), or install bubblewrap (apt-get install bubblewrap) with unprivileged user namespaces allowed; then restart'),
      ];
  }
}

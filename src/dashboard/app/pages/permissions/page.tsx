/**
 * The Permissions page (perms module; svc.dashboard.perms.view to open it, changes need
 * svc.dashboard.perms.manage, which the server enforces: the page says so, in words, when it
 * refuses). Its views, each at its own address: groups with their parents, weights and nodes,
 * tracks, players with their memberships and expiries, the check/debug box, and the module's
 * audit log. Kept current by the module's events (PERMISSION_GROUP_*, PLAYER_PERMISSIONS_UPDATED,
 * PERMISSION_TRACK_*, PLAYER_PROMOTED/DEMOTED) when the session may hear them, else read again
 * every 15 s. Loaded when first shown (../permissions.tsx).
 */
import { useEffect } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { Link, useSearchParams } from 'wouter-preact';
import { useLiveRefresh } from '../../live-refresh';
import { loadStylesheet } from '../../stylesheet';
import permissionsCss from './permissions.css' with { type: 'file' };
import { CheckView } from './check';
import { ChangesView } from './changes';
import { useAccess, type Access } from './common';
import { GroupsView } from './groups';
import { VIEWS, viewHref, type View } from './links';
import { PlayersView } from './players';
import { KEYS, MANAGE_NODE, VIEW_NODE } from './requests';
import { PERMS_EVENT_TYPES } from './rules';
import { TracksView } from './tracks';

export const ready = loadStylesheet(permissionsCss);

const PERMS_EVENTS: ReadonlySet<string> = new Set(PERMS_EVENT_TYPES);

/** Reads every permissions query again on the module's events (and on each reconnect). */
function LiveUpdates() {
  useLiveRefresh([KEYS.all], (type) => PERMS_EVENTS.has(type), 100);
  return null;
}

/** Without the events socket (a session lacking svc.dashboard.overview): the shown queries every 15 s. */
function Polling() {
  const queries = useQueryClient();
  useEffect(() => {
    const timer = setInterval(() => void queries.invalidateQueries({ queryKey: KEYS.all }), 15_000);
    return () => clearInterval(timer);
  }, [queries]);
  return null;
}

function AccessNote({ access }: { access: Access }) {
  if (!access.canManage) {
    return (
      <p class="perm-note" role="note">
        This session holds {VIEW_NODE} but not {MANAGE_NODE}: you can look at everything here, and the controller refuses every change.
      </p>
    );
  }
  if (!access.admin) {
    return (
      <p class="perm-note" role="note">
        Changes that would hand out admin (a node passing svc.dashboard.admin, a group or parent carrying one, lifting a negation that holds someone back) need an admin session: the
        controller refuses them from this one.
      </p>
    );
  }
  return null;
}

export function Page() {
  const [params] = useSearchParams();
  const access = useAccess();
  const asked = params.get('view');
  const view: View = VIEWS.some(([v]) => v === asked) ? (asked as View) : 'groups';
  return (
    <div class="op-page perm-page">
      <h1>Permissions</h1>
      <nav class="perm-views" aria-label="Permissions views">
        {VIEWS.map(([v, label]) => (
          <Link key={v} href={viewHref(v)} aria-current={v === view ? 'true' : undefined}>
            {label}
          </Link>
        ))}
      </nav>
      {access === undefined ? (
        <p>Loading…</p>
      ) : (
        <>
          {access.live ? <LiveUpdates /> : <Polling />}
          <AccessNote access={access} />
          {view === 'groups' && <GroupsView selected={params.get('group')} access={access} />}
          {view === 'tracks' && <TracksView />}
          {view === 'players' && <PlayersView selected={params.get('player')} access={access} />}
          {view === 'check' && <CheckView key={params.get('player') ?? ''} preset={params.get('player')} access={access} />}
          {view === 'changes' && <ChangesView />}
        </>
      )}
    </div>
  );
}

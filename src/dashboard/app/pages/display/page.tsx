/**
 * The display module's page (/display; ../display.tsx loads it when first shown): every
 * group's server-selector signs and NPC settings, one group at a time in a form beside a live
 * preview of the rendered lines (?group=<name> keeps the choice in the address). Save sends
 * only the changed fields (PUT /api/displays/{name}); Reset rewrites the defaults (POST
 * /api/displays/{name}/reset) after asking.
 *
 * Kept current by the module's DISPLAY_UPDATED (and the group events and reloads that add,
 * change or remove displays) on the live events socket; a session that may not open it
 * (without svc.dashboard.overview) reads again every 15 s. The page needs
 * svc.dashboard.display.view; saving and resetting need svc.dashboard.display.manage, which the
 * controller enforces: a session without it is told so beforehand, and its refusal in words.
 */
import { useEffect, useRef } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useSearchParams } from 'wouter-preact';
import { api } from '../../api';
import { useLiveRefresh } from '../../live-refresh';
import { loadStylesheet } from '../../stylesheet';
import displayCss from './display.css' with { type: 'file' };
import { useDisplayAccess, type DisplayAccess } from './access';
import { Editor } from './editor';
import { Displays } from './list';
import { BASE, KEYS, MANAGE_NODE, VIEW_NODE, type DisplayList, type Draft } from './model';

/** Resolves when the page's styles are in (the lazy loader shows the page only then). */
export const ready = loadStylesheet(displayCss as string);

/** What changes a display or the list of them: the module's event, and groups appearing, changing, going, or a reload. */
const DISPLAY_EVENTS: ReadonlySet<string> = new Set(['DISPLAY_UPDATED', 'GROUP_CREATED', 'GROUP_UPDATED', 'GROUP_DELETED', 'CONFIG_RELOADED']);
/** What changes the preview's numbers (players, servers, the player limit). */
const touchesNumbers = (type: string) => type.startsWith('SERVICE_') || type.startsWith('PLAYER_') || type === 'GROUP_UPDATED';
const SAMPLE_KEYS = [['display-sample']] as const;

function LiveUpdates() {
  useLiveRefresh([KEYS.all], (type) => DISPLAY_EVENTS.has(type), 100);
  // A start or a join burst is read once after it.
  useLiveRefresh(SAMPLE_KEYS, touchesNumbers, 500);
  return null;
}

/** Without the events socket: what is shown, read again every 15 s. */
function Polling() {
  const queries = useQueryClient();
  useEffect(() => {
    const timer = setInterval(() => {
      void queries.invalidateQueries({ queryKey: KEYS.all });
      void queries.invalidateQueries({ queryKey: SAMPLE_KEYS[0] });
    }, 15_000);
    return () => clearInterval(timer);
  }, [queries]);
  return null;
}

function AccessNote({ access }: { access: DisplayAccess }) {
  if (access.canManage) return null;
  return (
    <p class="dp-note" role="note">
      This session holds {VIEW_NODE} but not {MANAGE_NODE}: you can look at every display and try changes in the preview, and the controller refuses saving and resetting.
    </p>
  );
}

export function Page() {
  const access = useDisplayAccess();
  const [params] = useSearchParams();
  const asked = params.get('group');
  return (
    <section class="dp-page">
      <h1>Display</h1>
      <p class="dp-muted dp-intro">
        The server-selector signs and NPCs of each group that is not a proxy group, as the display plugin shows them on the servers: the sign’s four lines, the NPC’s hologram and
        floating item, the server picker the NPC opens, and the labels states show as.
      </p>
      {access === undefined ? <p class="dp-muted">Loading…</p> : <Body access={access} asked={asked} />}
    </section>
  );
}

function Body({ access, asked }: { access: DisplayAccess; asked: string | null }) {
  const list = useQuery({ queryKey: KEYS.list, queryFn: () => api<DisplayList>(BASE) });
  // Unsaved changes by group, kept while the page is open (another group opened and this one again).
  const drafts = useRef(new Map<string, Draft>());
  const found = asked === null ? undefined : list.data?.displays.find((d) => d.name.toLowerCase() === asked.toLowerCase());
  return (
    <>
      {access.live ? <LiveUpdates /> : <Polling />}
      <AccessNote access={access} />
      <Displays list={list} selected={asked} />
      {asked === null
        ? list.data &&
          list.data.total > 0 && (
            <p class="dp-muted" role="note">
              Choose a group above to edit its display.
            </p>
          )
        : list.data &&
          (found ? (
            <Editor name={found.name} access={access} drafts={drafts.current} />
          ) : (
            <p role="alert" class="dp-error">
              No display for “{asked}”: no group has that name now, or it is a proxy group (proxy groups have none). Choose a group above.
            </p>
          ))}
    </>
  );
}

/**
 * The resourcepacks module's page (/resource-packs; resource-packs.tsx loads it when first
 * shown): the packs (upload a zip with its progress and a Stop, add one hosted elsewhere with
 * its SHA-1, delete), where they are assigned — everywhere, a group or a service — in an order
 * changed by dragging or with Move up / Move down, and the stack a player gets on a group's or
 * a service's server. Kept current by the module's events (RESOURCE_PACK_CREATED, _DELETED,
 * _ASSIGNED, _UNASSIGNED) instead of polling.
 *
 * The page needs svc.dashboard.resourcepacks.view; adding and deleting packs .manage,
 * assigning .assign. The API enforces them; a session is told here beforehand which it lacks,
 * and a refusal in words.
 */
import { useQuery } from '@tanstack/preact-query';
import { useLiveRefresh } from '../../live-refresh';
import { loadStylesheet } from '../../stylesheet';
import packsCss from './resource-packs.css' with { type: 'file' };
import { AssignmentsSection } from './assignments';
import { useMay, type May } from './may';
import { ASSIGNMENTS_KEY, PACKS_KEY, RP_KEY } from './model';
import { PackListSection } from './packs';
import { usePlaces } from './places';
import { listAssignments, listPacks } from './requests';
import { StackSection } from './stack-view';
import { UploadForm } from './upload';
import { UrlPackForm } from './url-pack';

/** Resolves when the page's styles are in (the lazy loader shows the page only then). */
export const ready = loadStylesheet(packsCss as string);

const LIVE_KEYS = [RP_KEY];
/** The module's changes (a player's pack status is not one). */
const isPackEvent = (type: string) => type.startsWith('RESOURCE_PACK_') && type !== 'RESOURCE_PACK_STATUS';

export function Page() {
  const may = useMay();
  return (
    <section class="rp-page">
      <h1>Resource packs</h1>
      <nav class="rp-jump" aria-label="On this page">
        <a href="#rp-packs-title">Packs</a>
        <a href="#rp-add-title">Add a pack</a>
        <a href="#rp-assign-title">Assignments</a>
        <a href="#rp-stack-title">Resolved stack</a>
      </nav>
      {may === undefined ? <p class="rp-muted">Loading…</p> : <Sections may={may} />}
    </section>
  );
}

function Sections({ may }: { may: May }) {
  // A burst (a new order saved is several removes and assigns) is read once after it.
  useLiveRefresh(LIVE_KEYS, isPackEvent, 150);
  const packs = useQuery({ queryKey: PACKS_KEY, queryFn: listPacks });
  const assignments = useQuery({ queryKey: ASSIGNMENTS_KEY, queryFn: listAssignments });
  const places = usePlaces(may);
  return (
    <>
      <PackListSection may={may} packs={packs} assignments={assignments.data ?? []} />
      <section class="rp-card" aria-labelledby="rp-add-title">
        <h2 id="rp-add-title">Add a pack</h2>
        <div class="rp-add-forms">
          <UploadForm may={may} />
          <UrlPackForm may={may} />
        </div>
      </section>
      <AssignmentsSection may={may} packs={packs.data?.packs} assignments={assignments.data} failure={assignments.error} places={places} />
      <StackSection may={may} packs={packs.data?.packs} assignments={assignments.data} places={places} />
    </>
  );
}

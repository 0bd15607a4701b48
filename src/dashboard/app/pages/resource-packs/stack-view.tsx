/**
 * What a player gets on a server of a group, or on one service of it: the stack in the order
 * it is applied, as the controller answers the backend plugin on a player's join (GET
 * /api/resourcepacks/for-group/{group}?service=), with where each pack is assigned. That route
 * is for API tokens only (REFERENCE-MODULES §11: a browser session has no business on the
 * routes the servers call), so a dashboard session sees the stack worked out on the page from
 * the same assignments by the same rules (stack.ts), and is told so.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import type { May } from './may';
import { formatBytes, LIMITS, placeText, STACK_KEY, type Assignment, type Pack, type StackPack } from './model';
import { refusalText } from './outcome';
import type { Places } from './places';
import { stackFor } from './requests';
import { resolveOnPage, type StackEntry } from './stack';

interface Props {
  may: May;
  packs: readonly Pack[] | undefined;
  assignments: readonly Assignment[] | undefined;
  places: Places;
}

interface Row {
  key: string;
  name: string;
  pack: Pack | undefined;
  entry: StackEntry | undefined;
  priority: number;
  force: boolean;
  prompt: string;
}

export function StackSection({ may, packs, assignments, places }: Props) {
  const [group, setGroup] = useState('');
  const [service, setService] = useState('');
  const groupNames = places.groups ?? [];
  const chosenGroup = group !== '' || places.groups === null ? group : (groupNames[0] ?? '');
  const g = chosenGroup.trim();
  const s = service.trim();
  const fromApi = !may.session;
  const answer = useQuery({
    queryKey: [...STACK_KEY, g.toLowerCase(), s.toLowerCase()],
    queryFn: () => stackFor(g, s),
    enabled: fromApi && g !== '',
  });
  const local = packs && assignments && g !== '' ? resolveOnPage(packs, assignments, g, s) : undefined;
  const servicesHere = (places.services ?? []).filter((x) => x.groupName.toLowerCase() === g.toLowerCase());
  const known = places.services?.find((x) => x.name.toLowerCase() === s.toLowerCase());

  let rows: Row[] | undefined;
  if (fromApi) {
    rows = answer.data?.packs.map((p: StackPack, i) => {
      const entry = local?.find((e) => e.pack.packUuid === p.packUuid);
      return { key: `${p.packUuid}:${i}`, name: p.name, pack: entry?.pack ?? packs?.find((x) => x.packUuid === p.packUuid), entry, priority: p.priority, force: p.force, prompt: p.promptMessage };
    });
  } else {
    rows = local?.map((e) => ({ key: e.pack.packUuid, name: e.pack.name, pack: e.pack, entry: e, priority: e.assignment.priority, force: e.pack.force, prompt: e.pack.promptMessage }));
  }

  const who = s !== '' ? `a player on ${s} (group ${g})` : `a player on a server of group ${g}`;
  const pickService = (value: string) => {
    setService(value);
    // A service named is in its own group: the group follows it.
    const match = places.services?.find((x) => x.name.toLowerCase() === value.trim().toLowerCase());
    if (match && match.groupName !== '' && match.groupName.toLowerCase() !== g.toLowerCase()) setGroup(match.groupName);
  };

  return (
    <section class="rp-card" aria-labelledby="rp-stack-title">
      <h2 id="rp-stack-title">Resolved stack</h2>
      <p class="rp-muted">What a player gets on joining a server: the packs assigned everywhere, then the group’s, then the service’s, a pack assigned at several of these once, at the narrowest.</p>
      <form class="rp-stack-pick" aria-label="The server to resolve for" onSubmit={(e) => e.preventDefault()}>
        <div class="rp-field">
          <label for="rp-stack-group">Group</label>
          {places.groups !== null ? (
            <select id="rp-stack-group" value={chosenGroup} onChange={(e) => setGroup((e.currentTarget as HTMLSelectElement).value)}>
              {groupNames.length === 0 && <option value="">No group yet</option>}
              {chosenGroup !== '' && !groupNames.includes(chosenGroup) && <option value={chosenGroup}>{chosenGroup}</option>}
              {groupNames.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          ) : (
            <input id="rp-stack-group" value={group} maxLength={LIMITS.target} autoComplete="off" onInput={(e) => setGroup((e.currentTarget as HTMLInputElement).value)} />
          )}
        </div>
        <div class="rp-field">
          <label for="rp-stack-service">Service (optional)</label>
          <input
            id="rp-stack-service"
            list="rp-stack-services"
            value={service}
            maxLength={LIMITS.target}
            autoComplete="off"
            aria-describedby="rp-stack-service-hint"
            onInput={(e) => pickService((e.currentTarget as HTMLInputElement).value)}
          />
          <datalist id="rp-stack-services">
            {(servicesHere.length > 0 ? servicesHere : (places.services ?? [])).map((x) => (
              <option key={x.name} value={x.name} />
            ))}
          </datalist>
          <small id="rp-stack-service-hint" class="rp-muted">
            {s === '' ? 'Empty: any server of the group, without service assignments.' : known ? `${known.name} runs now, in group ${known.groupName}.` : `No service ${s} runs now; its name still counts when it does.`}
          </small>
        </div>
      </form>
      {!fromApi && g !== '' && (
        <p class="rp-note">
          Worked out on this page from the assignments, by the controller’s rules: the route servers ask (GET /api/resourcepacks/for-group) answers API tokens only, not a dashboard session.
        </p>
      )}
      {g === '' ? (
        <p class="rp-muted">Choose a group{places.groups === null ? ' (type its name)' : ''}.</p>
      ) : fromApi && answer.isError ? (
        <p role="alert" class="rp-error">
          {refusalText(answer.error, 'The stack could not be read')}
        </p>
      ) : !rows ? (
        <p class="rp-muted">Loading…</p>
      ) : rows.length === 0 ? (
        <p class="rp-muted" role="status">
          {who.charAt(0).toUpperCase() + who.slice(1)} gets no resource pack from the controller.
        </p>
      ) : (
        <>
          <p role="status" class="rp-stack-who">
            {who.charAt(0).toUpperCase() + who.slice(1)} gets {rows.length === 1 ? 'one pack' : `${rows.length} packs`}, applied in this order (a later one goes over an earlier one):
          </p>
          <ol class="rp-stack" aria-label={`Stack for ${who}`}>
            {rows.map((row) => (
              <li key={row.key} data-name={row.name}>
                <strong class="rp-stack-name">{row.name}</strong>
                <span class="rp-muted">
                  {row.entry ? `assigned ${row.entry.place.scope === 'GLOBAL' ? 'everywhere' : `to ${placeText(row.entry.place)}`}` : 'assigned'}, priority {row.priority}
                </span>
                <span class="rp-stack-facts">
                  {row.pack ? (row.pack.source === 'LOCAL' ? `uploaded, ${formatBytes(row.pack.fileSize)}` : 'hosted elsewhere') : ''}
                  {row.force ? `${row.pack ? ' · ' : ''}required: a player who declines it is kicked` : ''}
                  {row.prompt !== '' ? ` · prompt “${row.prompt}”` : ''}
                </span>
              </li>
            ))}
          </ol>
        </>
      )}
    </section>
  );
}

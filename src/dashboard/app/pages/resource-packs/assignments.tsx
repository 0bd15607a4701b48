/**
 * Where packs are assigned, one place at a time: everywhere (GLOBAL), a group, or one service.
 * The packs at the place are listed in the order the controller applies them (priority, then
 * the older assignment first), and put in a new order by dragging a row's grip or with its Move
 * up / Move down buttons (the keyboard's way). The API has no route that changes a priority, so
 * a new order removes and makes again the few assignments it must (order.ts); the page shows the
 * new order while it is saved, says what it saved, and what it could not in words. A pack is
 * added at the end of a place, or removed from it.
 *
 * Assigning needs svc.dashboard.resourcepacks.assign (not .manage): the routes check that node.
 */
import { useLayoutEffect, useMemo, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import type { May } from './may';
import { assignmentsAt, LIMITS, NODE, placesInUse, placeText, RP_KEY, samePlace, targetProblem, type Assignment, type Pack, type Place, type Scope } from './model';
import { moved, planOrder } from './order';
import { NeedsNode, OutcomeLine, refusalText, type Outcome } from './outcome';
import type { Places } from './places';
import { assign, unassign } from './requests';
import { Sortable } from './sortable';

interface Props {
  may: May;
  packs: readonly Pack[] | undefined;
  assignments: readonly Assignment[] | undefined;
  /** Why the assignments could not be read, when they could not. */
  failure: unknown;
  places: Places;
}

const SCOPE_LABEL: Record<Scope, string> = { GLOBAL: 'Everywhere', GROUP: 'A group', SERVICE: 'A service' };

/** Options for a target: those the API lists and those already named by assignments, each once (without case). */
function namesOf(listed: readonly string[] | null, assignments: readonly Assignment[], scope: Scope): string[] {
  const names = new Map<string, string>();
  for (const name of listed ?? []) names.set(name.toLowerCase(), name);
  for (const a of assignments) if (a.scope === scope && !names.has(a.target.toLowerCase())) names.set(a.target.toLowerCase(), a.target);
  return [...names.values()].sort((a, b) => a.localeCompare(b));
}

export function AssignmentsSection({ may, packs, assignments, failure, places }: Props) {
  const queries = useQueryClient();
  const [scope, setScope] = useState<Scope>('GLOBAL');
  const [targets, setTargets] = useState<Record<'GROUP' | 'SERVICE', string>>({ GROUP: '', SERVICE: '' });
  /** The order being saved, shown meanwhile (pack ids). */
  const [pending, setPending] = useState<{ place: Place; order: number[] } | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [adding, setAdding] = useState('');
  const [focus, setFocus] = useState<{ packId: number; direction: 'up' | 'down' } | null>(null);

  const all = assignments ?? [];
  const groupNames = useMemo(() => namesOf(places.groups, all, 'GROUP'), [places.groups, all]);
  const serviceNames = useMemo(() => namesOf(places.services?.map((s) => s.name) ?? null, all, 'SERVICE'), [places.services, all]);
  // A group picked from a list: the first one until the operator picks.
  const groupTarget = targets.GROUP !== '' || places.groups === null ? targets.GROUP : (groupNames[0] ?? '');
  const target = scope === 'GLOBAL' ? '' : scope === 'GROUP' ? groupTarget : targets.SERVICE;
  const place: Place = { scope, target: target.trim() };
  const placeBad = targetProblem(scope, target);
  const byId = useMemo(() => new Map((packs ?? []).map((p) => [p.id, p])), [packs]);
  const here = placeBad ? [] : assignmentsAt(all, place).filter((a) => byId.has(a.packId));
  const order = pending && samePlace(pending.place, place) ? pending.order : here.map((a) => a.packId);
  const items = order.map((packId) => ({ key: packId, pack: byId.get(packId)!, assignment: here.find((a) => a.packId === packId) })).filter((i) => i.pack !== undefined);
  const addable = (packs ?? []).filter((p) => !here.some((a) => a.packId === p.id));
  const addChoice = addable.find((p) => String(p.id) === adding) ?? addable[0];
  const mayAssign = may(NODE.assign);
  const where = placeText(place);

  // After a move, the keyboard stays on the moved pack's button (the other one at an end of the list).
  useLayoutEffect(() => {
    if (!focus) return;
    const wanted = document.getElementById(`rp-move-${focus.direction}-${focus.packId}`) as HTMLButtonElement | null;
    const other = document.getElementById(`rp-move-${focus.direction === 'up' ? 'down' : 'up'}-${focus.packId}`) as HTMLButtonElement | null;
    const target = wanted && !wanted.disabled ? wanted : other;
    if (target && document.activeElement !== target) target.focus();
  });

  const refresh = () => queries.invalidateQueries({ queryKey: RP_KEY });

  const saveOrder = async (wanted: number[], focusAfter: { packId: number; direction: 'up' | 'down' } | null) => {
    const atPlace = { ...place };
    const plan = planOrder(here, wanted);
    if (plan.length === 0) return;
    setPending({ place: atPlace, order: wanted });
    setFocus(focusAfter);
    setBusy(true);
    setOutcome({ ok: true, text: `Saving the order of ${placeText(atPlace)}…` });
    let failure: string | null = null;
    for (const change of plan) {
      const name = byId.get(change.assignment.packId)?.name ?? `pack ${change.assignment.packId}`;
      try {
        await unassign(change.assignment.id);
      } catch (error) {
        failure = refusalText(error, `The order was not saved (${name} could not be moved)`);
        break;
      }
      try {
        await assign(change.assignment.packId, atPlace, change.priority);
      } catch (error) {
        const why = refusalText(error, `${name} could not be given its new place`);
        try {
          await assign(change.assignment.packId, atPlace, change.assignment.priority);
          failure = `${why} It is back where it was.`;
        } catch {
          failure = `${why} It is no longer assigned to ${placeText(atPlace)}: add it again.`;
        }
        break;
      }
    }
    await refresh();
    setPending(null);
    setBusy(false);
    if (failure) setOutcome({ ok: false, text: failure });
    else setOutcome({ ok: true, text: `Order saved for ${placeText(atPlace)}: ${wanted.map((id, i) => `${i + 1}. ${byId.get(id)?.name ?? id}`).join(', ')}.` });
  };

  const move = (from: number, to: number, direction: 'up' | 'down' | null, packId: number) => {
    if (busy || to < 0 || to >= order.length) return;
    void saveOrder(moved(order, from, to), direction ? { packId, direction } : null);
  };

  const remove = async (assignment: Assignment, pack: Pack) => {
    if (busy) return;
    setBusy(true);
    setOutcome(null);
    try {
      await unassign(assignment.id);
      setOutcome({ ok: true, text: `${pack.name} is no longer assigned to ${placeText(place)}.` });
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, `${pack.name} was not removed from ${placeText(place)}`) });
    } finally {
      await refresh();
      setBusy(false);
    }
  };

  const add = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const pack = addChoice;
    if (placeBad) {
      setOutcome({ ok: false, text: placeBad });
      return;
    }
    if (!pack) return;
    const last = here[here.length - 1];
    const priority = last ? Math.min(last.priority + 10, LIMITS.priority) : 0;
    setBusy(true);
    setOutcome(null);
    try {
      await assign(pack.id, place, priority);
      setOutcome({ ok: true, text: `${pack.name} is assigned to ${placeText(place)}, last in its order.` });
      setAdding('');
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, `${pack.name} was not assigned to ${placeText(place)}`) });
    } finally {
      await refresh();
      setBusy(false);
    }
  };

  const inUse = placesInUse(all);
  const setTarget = (which: 'GROUP' | 'SERVICE', value: string) => setTargets((was) => ({ ...was, [which]: value }));
  const pick = (p: Place) => {
    setScope(p.scope);
    if (p.scope !== 'GLOBAL') setTarget(p.scope, p.target);
    setOutcome(null);
  };

  return (
    <section class="rp-card" aria-labelledby="rp-assign-title">
      <h2 id="rp-assign-title">Assignments</h2>
      <p class="rp-muted">
        A server applies the packs assigned everywhere, then its group’s, then its own service’s, each place in its order: a later pack goes over an earlier one.
      </p>
      {!mayAssign && <NeedsNode what="change assignments" node={NODE.assign} />}
      {inUse.length > 0 && (
        <div class="rp-in-use" role="group" aria-label="Places with packs">
          {inUse.map(({ place: p, count }) => (
            <button key={`${p.scope}:${p.target}`} type="button" class="rp-chip" aria-pressed={samePlace(p, place)} onClick={() => pick(p)}>
              {p.scope === 'GLOBAL' ? 'Everywhere' : placeText(p)} <span class="rp-muted">({count})</span>
            </button>
          ))}
        </div>
      )}
      <div class="rp-place">
        <fieldset class="rp-scopes">
          <legend>Where</legend>
          {(['GLOBAL', 'GROUP', 'SERVICE'] as const).map((s) => (
            <label key={s}>
              <input type="radio" name="rp-scope" value={s} checked={scope === s} onChange={() => setScope(s)} /> {SCOPE_LABEL[s]}
            </label>
          ))}
        </fieldset>
        {scope === 'GROUP' &&
          (places.groups !== null ? (
            <div class="rp-field">
              <label for="rp-assign-group">Group</label>
              <select id="rp-assign-group" value={groupTarget} onChange={(e) => setTarget('GROUP', (e.currentTarget as HTMLSelectElement).value)}>
                {groupNames.length === 0 && <option value="">No group yet</option>}
                {groupNames.map((g) => (
                  <option key={g} value={g}>
                    {g}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            <div class="rp-field">
              <label for="rp-assign-group">Group</label>
              <input id="rp-assign-group" value={targets.GROUP} maxLength={LIMITS.target} autoComplete="off" onInput={(e) => setTarget('GROUP', (e.currentTarget as HTMLInputElement).value)} />
            </div>
          ))}
        {scope === 'SERVICE' && (
          <div class="rp-field">
            <label for="rp-assign-service">Service</label>
            <input
              id="rp-assign-service"
              list="rp-assign-services"
              value={targets.SERVICE}
              maxLength={LIMITS.target}
              autoComplete="off"
              aria-describedby="rp-assign-service-hint"
              onInput={(e) => setTarget('SERVICE', (e.currentTarget as HTMLInputElement).value)}
            />
            <datalist id="rp-assign-services">
              {serviceNames.map((s) => (
                <option key={s} value={s} />
              ))}
            </datalist>
            <small id="rp-assign-service-hint" class="rp-muted">
              Its name, such as Lobby-1: a service that is not running now can be named too.
            </small>
          </div>
        )}
      </div>

      <h3 id="rp-here-title">{placeBad ? 'Packs here' : `Packs ${scope === 'GLOBAL' ? 'assigned everywhere' : `of ${where}`}`}</h3>
      {placeBad && scope !== 'GLOBAL' ? (
        <p class="rp-muted">{placeBad}</p>
      ) : failure ? (
        <p role="alert" class="rp-error">
          {refusalText(failure, 'The assignments could not be read')}
        </p>
      ) : !assignments || !packs ? (
        <p class="rp-muted">Loading…</p>
      ) : items.length === 0 ? (
        <p class="rp-muted">No pack is assigned {scope === 'GLOBAL' ? 'everywhere' : `to ${where}`}.</p>
      ) : (
        <>
          <p class="rp-muted rp-hint">Drag a row by its grip, or use its Move up and Move down buttons; the first is applied first.</p>
          <Sortable
            items={items}
            disabled={busy}
            label={`Order of the packs ${scope === 'GLOBAL' ? 'assigned everywhere' : `of ${where}`}`}
            onMove={(from, to) => move(from, to, null, items[from]!.key)}
            row={(item, index) => (
              <div class="rp-order-row">
                <span class="rp-position" aria-hidden="true">
                  {index + 1}
                </span>
                <span class="rp-order-name">
                  <strong>{item.pack.name}</strong>
                  <small class="rp-muted">
                    {item.assignment ? `priority ${item.assignment.priority}` : 'saving…'}
                    {item.pack.force ? ' · required' : ''}
                  </small>
                </span>
                <span class="rp-order-actions">
                  <button
                    type="button"
                    class="rp-secondary rp-icon"
                    id={`rp-move-up-${item.key}`}
                    aria-label={`Move ${item.pack.name} up`}
                    title="Move up"
                    disabled={index === 0}
                    aria-disabled={busy ? true : undefined}
                    onClick={() => move(index, index - 1, 'up', item.key)}
                  >
                    ↑
                  </button>
                  <button
                    type="button"
                    class="rp-secondary rp-icon"
                    id={`rp-move-down-${item.key}`}
                    aria-label={`Move ${item.pack.name} down`}
                    title="Move down"
                    disabled={index === items.length - 1}
                    aria-disabled={busy ? true : undefined}
                    onClick={() => move(index, index + 1, 'down', item.key)}
                  >
                    ↓
                  </button>
                  <button
                    type="button"
                    class="rp-secondary"
                    aria-label={`Remove ${item.pack.name} from ${where}`}
                    aria-disabled={busy || !item.assignment ? true : undefined}
                    onClick={() => item.assignment && void remove(item.assignment, item.pack)}
                  >
                    Remove
                  </button>
                </span>
              </div>
            )}
          />
        </>
      )}
      {!placeBad && packs && (
        <form class="rp-add" aria-label={`Add a pack to ${where}`} onSubmit={(e) => void add(e)}>
          {addable.length === 0 ? (
            <p class="rp-muted">{packs.length === 0 ? 'There is no pack to assign yet.' : `Every pack is assigned ${scope === 'GLOBAL' ? 'everywhere' : `to ${where}`}.`}</p>
          ) : (
            <>
              <div class="rp-field">
                <label for="rp-add-pack">Pack to add {scope === 'GLOBAL' ? 'everywhere' : `to ${where}`}</label>
                <select id="rp-add-pack" value={String(addChoice!.id)} onChange={(e) => setAdding((e.currentTarget as HTMLSelectElement).value)}>
                  {addable.map((p) => (
                    <option key={p.id} value={String(p.id)}>
                      {p.name}
                    </option>
                  ))}
                </select>
              </div>
              <button type="submit" aria-disabled={busy ? true : undefined}>
                Add at the end
              </button>
            </>
          )}
        </form>
      )}
      <OutcomeLine outcome={outcome} />
    </section>
  );
}

/**
 * Players as the permissions module knows them: a search by name (or a UUID opened directly),
 * and one player's panel: their memberships with server, world and expiry (added with an
 * optional expiry, removed one at a time), promote and demote on each track, their effective
 * permissions, their meta, and a link to ask why a node resolves as it does for them.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { Link, useLocation } from 'wouter-preact';
import { OutcomeLine } from '../settings/outcome';
import { EMPTY_SCOPE, ExpiryText, Field, inputText, ReadFailure, ScopeFields, scopeBody, useHeadingFocus, usePermsAction, useRefreshAtExpiry, whereWords, type Access, type ScopeInput } from './common';
import { checkHref, groupHref, playerHref } from './links';
import { MetaCard } from './meta';
import {
  addMembership,
  getPlayer,
  KEYS,
  listGroups,
  listTracks,
  removeMembership,
  removePlayerMeta,
  searchPlayers,
  setPlayerMeta,
  stepOnTrack,
  type PermGroup,
  type PermPlayer,
  type StepResult,
} from './requests';
import { normalizeUuid, playerNameProblem, SEARCH_MAX } from './rules';

export function PlayersView({ selected, access }: { selected: string | null; access: Access }) {
  if (selected !== null) {
    const uuid = normalizeUuid(selected);
    if (!uuid) {
      return (
        <section class="op-card" aria-labelledby="perm-bad-uuid">
          <h2 id="perm-bad-uuid">Not a UUID</h2>
          <p>“{selected}” is not a player UUID (dashed 8-4-4-4-12 or 32 hexadecimal digits).</p>
          <p>
            <Link href="/permissions?view=players">Find a player</Link>
          </p>
        </section>
      );
    }
    return <PlayerPanel key={uuid} uuid={uuid} access={access} />;
  }
  return <PlayerSearch />;
}

function PlayerSearch() {
  const [, navigate] = useLocation();
  const [text, setText] = useState('');
  const [q, setQ] = useState('');
  const [problem, setProblem] = useState<string | undefined>();
  const found = useQuery({ queryKey: KEYS.players(q), queryFn: () => searchPlayers(q) });
  const submit = (event: Event) => {
    event.preventDefault();
    const wanted = text.trim();
    const uuid = normalizeUuid(wanted);
    if (uuid) return navigate(playerHref(uuid));
    const why = wanted.length > SEARCH_MAX ? `q has more than ${SEARCH_MAX} characters` : undefined;
    setProblem(why);
    if (!why) setQ(wanted);
  };
  return (
    <section class="op-card" aria-labelledby="perm-players-title">
      <h2 id="perm-players-title">Players</h2>
      <p class="op-muted">Players are known once they join (or once given a group). A UUID opens that player, seen or not.</p>
      <form class="perm-form perm-search" role="search" aria-label="Find a player" onSubmit={submit} noValidate>
        <Field id="perm-player-q" label="Name or UUID" problem={problem}>
          {(a) => <input {...a} type="search" value={text} autoComplete="off" spellcheck={false} onInput={(e) => setText(inputText(e))} />}
        </Field>
        <button type="submit">Find</button>
      </form>
      {found.isPending && <p>Loading…</p>}
      {found.isError && <ReadFailure error={found.error} what="The players" />}
      {found.data && found.data.length === 0 && <p class="op-muted">{q ? `No known player's name contains “${q}”.` : 'No player is known yet.'}</p>}
      {found.data && found.data.length > 0 && (
        <table class="gd-table perm-table" aria-label="Known players">
          <thead>
            <tr>
              <th scope="col">Player</th>
              <th scope="col">UUID</th>
              <th scope="col">Groups</th>
            </tr>
          </thead>
          <tbody>
            {found.data.map((p) => (
              <tr key={p.uuid}>
                <th scope="row" data-label="Player">
                  <Link href={playerHref(p.uuid)}>{p.name}</Link>
                </th>
                <td data-label="UUID" class="perm-uuid">
                  {p.uuid}
                </td>
                <td data-label="Groups" class="gd-wrap">
                  {p.groups.length ? p.groups.join(', ') : <span class="op-muted">the default group only</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function PlayerPanel({ uuid, access }: { uuid: string; access: Access }) {
  const player = useQuery({ queryKey: KEYS.player(uuid), queryFn: () => getPlayer(uuid) });
  const groups = useQuery({ queryKey: KEYS.groups, queryFn: listGroups });
  useRefreshAtExpiry(KEYS.player(uuid), player.data?.memberships.map((m) => m.expiresAt) ?? []);
  if (player.isPending || groups.isPending) return <p>Loading…</p>;
  if (player.isError) return <ReadFailure error={player.error} what="The player" />;
  if (groups.isError) return <ReadFailure error={groups.error} what="The permission groups" />;
  const p = player.data;
  const unseen = p.name === 'unknown';
  const title = unseen ? `Player ${uuid}` : p.name;
  const you = access.me?.uuid === uuid;
  const fallback = groups.data.groups.find((g) => g.default);
  return (
    <>
      <nav class="perm-crumbs" aria-label="Breadcrumb">
        <Link href="/permissions?view=players">Players</Link> <span aria-hidden="true">/</span> <span aria-current="page">{unseen ? uuid : p.name}</span>
      </nav>
      <section class="op-card" aria-labelledby="perm-player-title">
        <div class="perm-head">
          <PlayerHeading title={title} />
          {you && <span class="op-pill">you</span>}
        </div>
        <dl class="perm-facts">
          <div>
            <dt>UUID</dt>
            <dd class="perm-uuid">{p.uuid}</dd>
          </div>
          <div>
            <dt>Shown as</dt>
            <dd>
              {p.displayGroup || <span class="op-muted">no group</span>}
              {p.prefix && (
                <>
                  {' '}
                  with prefix <code>{p.prefix}</code>
                </>
              )}
            </dd>
          </div>
          {unseen && (
            <div>
              <dt>Seen</dt>
              <dd>not yet: the module has no record of this UUID. Giving a group stores the player.</dd>
            </div>
          )}
        </dl>
        <p>
          <Link href={checkHref(uuid)}>Check a permission for {unseen ? 'this player' : p.name}</Link>
        </p>
      </section>
      <Memberships player={p} fallback={fallback} groups={groups.data.groups} access={access} />
      <Tracks player={p} />
      <section class="op-card" aria-labelledby="perm-effective-title">
        <h3 id="perm-effective-title">Effective permissions</h3>
        <p class="op-muted">What the proxy and the servers apply for {unseen ? 'this player' : p.name} when not on a particular server or world; a - marks a negation that wins. Players hold permissions through their groups.</p>
        {p.effectivePermissions.length === 0 ? (
          <p class="op-muted">None.</p>
        ) : (
          <ul class="perm-effective" aria-label={`Effective permissions of ${unseen ? uuid : p.name}`}>
            {p.effectivePermissions.map((node) => (
              <li key={node}>
                <code class={node.startsWith('-') ? 'perm-negated' : undefined}>{node}</code>
              </li>
            ))}
          </ul>
        )}
      </section>
      <MetaCard id="perm-player-meta" owner={unseen ? uuid : p.name} meta={p.meta} refresh={KEYS.player(uuid)} set={(key, value) => setPlayerMeta(uuid, key, value)} remove={(key) => removePlayerMeta(uuid, key)} />
    </>
  );
}

function PlayerHeading({ title }: { title: string }) {
  const heading = useHeadingFocus<HTMLHeadingElement>();
  return (
    <h2 id="perm-player-title" class="perm-title" ref={heading} tabIndex={-1}>
      {title}
    </h2>
  );
}

function Memberships({ player, fallback, groups, access }: { player: PermPlayer; fallback: PermGroup | undefined; groups: PermGroup[]; access: Access }) {
  const remove = usePermsAction();
  const who = player.name === 'unknown' ? player.uuid : player.name;
  return (
    <section class="op-card" aria-labelledby="perm-memberships-title">
      <h3 id="perm-memberships-title">Groups</h3>
      {fallback && (
        <p class="op-muted">
          Every player also holds the default group, <Link href={groupHref(fallback.name)}>{fallback.name}</Link>.
        </p>
      )}
      {player.memberships.length === 0 ? (
        <p class="op-muted">{who} is in no group of their own.</p>
      ) : (
        <table class="gd-table perm-table" aria-label={`Groups of ${who}`}>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Where</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="gd-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {player.memberships.map((m) => {
              const where = whereWords(m);
              return (
                <tr key={`${m.group}|${m.server ?? ''}|${m.world ?? ''}`}>
                  <th scope="row" data-label="Group">
                    <Link href={groupHref(m.group)}>{m.group}</Link>
                  </th>
                  <td data-label="Where">{where}</td>
                  <td data-label="Expires" class="gd-wrap">
                    <ExpiryText iso={m.expiresAt} />
                  </td>
                  <td class="gd-row-actions">
                    <button
                      type="button"
                      class="gd-secondary"
                      disabled={remove.busy}
                      aria-label={`Remove ${who} from ${m.group}${where === 'everywhere' ? '' : ` on ${where}`}`}
                      onClick={() =>
                        void remove.run(async () => (await removeMembership(player.uuid, { group: m.group, ...(m.server ? { server: m.server } : {}), ...(m.world ? { world: m.world } : {}) })).message)
                      }
                    >
                      Remove
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      <OutcomeLine outcome={remove.outcome} />
      <AddMembership player={player} groups={groups} access={access} />
    </section>
  );
}

function AddMembership({ player, groups, access }: { player: PermPlayer; groups: PermGroup[]; access: Access }) {
  const unseen = player.name === 'unknown';
  const choices = groups.filter((g) => !g.default);
  const [group, setGroup] = useState(choices[0]?.name ?? '');
  const [name, setName] = useState('');
  const [scope, setScope] = useState<ScopeInput>(EMPTY_SCOPE);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const action = usePermsAction();
  const chosen = choices.some((g) => g.name === group) ? group : (choices[0]?.name ?? '');
  const submit = async (event: Event) => {
    event.preventDefault();
    const { problems: found, body } = scopeBody(scope, Date.now());
    if (!chosen) found.group = 'there is no group to add: make one on the Groups tab first';
    const typedName = name.trim();
    if (unseen && typedName) {
      const why = playerNameProblem(typedName);
      if (why) found.name = why;
    }
    setProblems(found);
    if (Object.keys(found).length) return;
    const done = await action.run(async () => (await addMembership(player.uuid, { group: chosen, ...(unseen && typedName ? { name: typedName } : {}), ...body })).message);
    if (done) {
      setScope(EMPTY_SCOPE);
      setName('');
    }
  };
  const who = unseen ? 'this player' : player.name;
  return (
    <form class="perm-form perm-subform" aria-label={`Add ${who} to a group`} onSubmit={(e) => void submit(e)} noValidate>
      <h4>Add to a group</h4>
      <div class="gd-grid">
        <Field id="perm-member-group" label="Group" problem={problems.group}>
          {(a) => (
            <select {...a} value={chosen} onChange={(e) => setGroup(inputText(e))}>
              {choices.map((g) => (
                <option key={g.name} value={g.name}>
                  {g.name}
                </option>
              ))}
            </select>
          )}
        </Field>
        {unseen && (
          <Field id="perm-member-name" label="Player name" hint="Stored with the UUID, since the module has not seen this player (optional)." problem={problems.name}>
            {(a) => <input {...a} type="text" value={name} autoComplete="off" spellcheck={false} onInput={(e) => setName(inputText(e))} />}
          </Field>
        )}
        <ScopeFields id="perm-member" value={scope} problems={problems} onChange={setScope} />
      </div>
      {access.canManage && !access.admin && <p class="op-muted">A group that carries admin can be given only by an admin session: the controller refuses it otherwise.</p>}
      <div class="op-actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Adding…' : 'Add to group'}
        </button>
      </div>
      <OutcomeLine outcome={action.outcome} />
    </form>
  );
}

function Tracks({ player }: { player: PermPlayer }) {
  const tracks = useQuery({ queryKey: KEYS.tracks, queryFn: listTracks });
  const action = usePermsAction();
  const [step, setStep] = useState<StepResult | null>(null);
  const who = player.name === 'unknown' ? 'this player' : player.name;
  const go = (track: string, direction: 'promote' | 'demote') => {
    setStep(null);
    void action.run(async () => {
      const answer = await stepOnTrack(track, player.uuid, direction);
      setStep(answer);
      return answer.message;
    });
  };
  if (tracks.isPending) return null;
  if (tracks.isError) return <ReadFailure error={tracks.error} what="The tracks" />;
  if (tracks.data.tracks.length === 0) return null;
  // A step the API did not take (top or bottom of the track, or no group on it) is a 200 with success false: said, not alarmed.
  const outcome = step && !step.success ? { ok: true, text: `Nothing changed: ${step.message}.` } : action.outcome;
  return (
    <section class="op-card" aria-labelledby="perm-tracks-step-title">
      <h3 id="perm-tracks-step-title">Tracks</h3>
      <ul class="perm-track-steps">
        {tracks.data.tracks.map((t) => {
          const rank = t.groups.reduce((best, g, i) => (player.groups.some((held) => held.toLowerCase() === g.toLowerCase()) ? i : best), -1);
          return (
            <li key={t.name}>
              <div>
                <strong>{t.name}</strong>: {t.groups.join(' → ')}
                <br />
                <span class="op-muted">{rank < 0 ? `${who} holds no group of it` : `${who} stands at ${t.groups[rank]}`}</span>
              </div>
              <span class="perm-step-buttons">
                <button type="button" class="gd-secondary" disabled={action.busy} aria-label={`Promote ${who} on ${t.name}`} onClick={() => go(t.name, 'promote')}>
                  Promote
                </button>
                <button type="button" class="gd-secondary" disabled={action.busy} aria-label={`Demote ${who} on ${t.name}`} onClick={() => go(t.name, 'demote')}>
                  Demote
                </button>
              </span>
            </li>
          );
        })}
      </ul>
      <OutcomeLine outcome={outcome} />
    </section>
  );
}

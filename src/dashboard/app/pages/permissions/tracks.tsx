/**
 * Tracks: ordered ladders of groups, lowest rank first, that promote and demote move a player
 * along (from the player's panel). A track is made here with its groups in order; the API has
 * no route that changes a track, so saving an edit deletes it and creates it again, and puts
 * the old one back if the new one is refused.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { ConfirmDialog } from '../../forms/confirm-dialog';
import { OutcomeLine } from '../settings/outcome';
import { Field, inputText, ReadFailure, refusalWords, usePermsAction } from './common';
import { createTrack, deleteTrack, KEYS, listGroups, listTracks, type PermGroup, type Track } from './requests';
import { trackGroupsProblem, trackNameProblem } from './rules';

export function TracksView() {
  const tracks = useQuery({ queryKey: KEYS.tracks, queryFn: listTracks });
  const groups = useQuery({ queryKey: KEYS.groups, queryFn: listGroups });
  const [editing, setEditing] = useState<Track | null>(null);
  const [deleting, setDeleting] = useState<Track | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // A new form after each save: the list says what was done, the form starts empty.
  const [saves, setSaves] = useState(0);
  if (tracks.isPending || groups.isPending) return <p>Loading…</p>;
  if (tracks.isError) return <ReadFailure error={tracks.error} what="The tracks" />;
  if (groups.isError) return <ReadFailure error={groups.error} what="The permission groups" />;
  const list = tracks.data.tracks;
  return (
    <>
      <section class="op-card" aria-labelledby="perm-tracks-title">
        <h2 id="perm-tracks-title">Tracks</h2>
        <p class="op-muted">A promotion takes a player from the group they hold on the track to the next one up; a demotion one down. Lower track groups they also hold stay.</p>
        {notice && (
          <p role="status" class="op-ok">
            {notice}
          </p>
        )}
        {list.length === 0 ? (
          <p class="op-muted">No track yet: the form below makes the first.</p>
        ) : (
          <table class="gd-table perm-table" aria-label="Tracks">
            <thead>
              <tr>
                <th scope="col">Track</th>
                <th scope="col">Groups, lowest rank first</th>
                <th scope="col">
                  <span class="gd-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((t) => (
                <tr key={t.name}>
                  <th scope="row" data-label="Track">
                    {t.name}
                  </th>
                  <td data-label="Groups" class="gd-wrap">
                    <ol class="perm-ladder" aria-label={`Groups of ${t.name}`}>
                      {t.groups.map((g) => (
                        <li key={g}>{g}</li>
                      ))}
                    </ol>
                  </td>
                  <td class="gd-row-actions">
                    <button
                      type="button"
                      class="gd-secondary"
                      aria-label={`Edit ${t.name}`}
                      onClick={() => {
                        setNotice(null);
                        setEditing(t);
                        requestAnimationFrame(() => document.getElementById('perm-track-name')?.focus());
                      }}
                    >
                      Edit
                    </button>
                    <button
                      type="button"
                      class="gd-secondary"
                      aria-label={`Delete ${t.name}`}
                      onClick={() => {
                        setNotice(null);
                        setDeleting(t);
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <TrackForm
        key={`${editing?.name ?? '(new)'}#${saves}`}
        editing={editing}
        tracks={list}
        groups={groups.data.groups}
        onDone={(message) => {
          setEditing(null);
          setSaves((n) => n + 1);
          setNotice(message);
        }}
        onCancel={() => setEditing(null)}
      />
      {deleting && <DeleteTrack track={deleting} onDone={(message) => (setDeleting(null), setNotice(message))} onClose={() => setDeleting(null)} />}
    </>
  );
}

function DeleteTrack({ track, onDone, onClose }: { track: Track; onDone: (message: string) => void; onClose: () => void }) {
  let message = '';
  return (
    <ConfirmDialog
      title={`Delete the track ${track.name}?`}
      confirmLabel={`Delete ${track.name}`}
      onConfirm={async () => {
        message = (await deleteTrack(track.name)).message;
      }}
      explain={(failure) => <p>{refusalWords(failure)}</p>}
      onDone={() => onDone(`${message.charAt(0).toUpperCase()}${message.slice(1)}.`)}
      onClose={onClose}
    >
      <p>The groups and every player's memberships stay; only the ladder {track.groups.join(' → ')} goes.</p>
    </ConfirmDialog>
  );
}

interface FormProps {
  editing: Track | null;
  tracks: Track[];
  groups: PermGroup[];
  onDone: (message: string) => void;
  onCancel: () => void;
}

function TrackForm({ editing, tracks, groups, onDone, onCancel }: FormProps) {
  const [name, setName] = useState(editing?.name ?? '');
  const [ladder, setLadder] = useState<string[]>(editing?.groups ?? []);
  const unused = groups.filter((g) => !ladder.some((l) => l.toLowerCase() === g.name.toLowerCase()));
  const [pick, setPick] = useState('');
  const [problems, setProblems] = useState<Record<string, string>>({});
  const action = usePermsAction();
  const chosen = unused.some((g) => g.name === pick) ? pick : (unused[0]?.name ?? '');

  const move = (index: number, by: -1 | 1) => {
    const next = [...ladder];
    const [item] = next.splice(index, 1);
    next.splice(index + by, 0, item!);
    setLadder(next);
    // Keep the keyboard on the moved group's button.
    requestAnimationFrame(() => {
      const same = document.getElementById(`perm-step-${index + by}-${by < 0 ? 'up' : 'down'}`) as HTMLButtonElement | null;
      const other = document.getElementById(`perm-step-${index + by}-${by < 0 ? 'down' : 'up'}`) as HTMLButtonElement | null;
      (same && !same.disabled ? same : other)?.focus();
    });
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    const wanted = name.trim();
    const found: Record<string, string> = {};
    const taken = tracks.find((t) => t.name.toLowerCase() === wanted.toLowerCase() && t.name.toLowerCase() !== editing?.name.toLowerCase());
    const nameWhy = trackNameProblem(wanted) ?? (taken ? `a track named "${taken.name}" already exists` : undefined);
    if (nameWhy) found.name = nameWhy;
    const missing = ladder.find((l) => !groups.some((g) => g.name.toLowerCase() === l.toLowerCase()));
    const groupsWhy = trackGroupsProblem(ladder) ?? (missing ? `"${missing}" is not a permission group` : undefined);
    if (groupsWhy) found.groups = groupsWhy;
    setProblems(found);
    if (Object.keys(found).length) return;
    let message = '';
    const done = await action.run(async () => {
      if (!editing) return (message = (await createTrack(wanted, ladder)).message);
      await deleteTrack(editing.name);
      try {
        message = `${(await createTrack(wanted, ladder)).message} (replacing ${editing.name}: ${editing.groups.join(' → ')})`;
        return message;
      } catch (refused) {
        let back = `${editing.name} was put back as it was.`;
        try {
          await createTrack(editing.name, editing.groups);
        } catch (again) {
          back = `Putting ${editing.name} back failed too (${refusalWords(again)}): it is deleted.`;
        }
        throw new Error(`${refusalWords(refused)} ${back}`);
      }
    });
    if (done) onDone(`${message.charAt(0).toUpperCase()}${message.slice(1)}.`);
  };

  const title = editing ? `Edit the track ${editing.name}` : 'New track';
  return (
    <section class="op-card" aria-labelledby="perm-track-form-title">
      <h2 id="perm-track-form-title">{title}</h2>
      {editing && <p class="op-muted">The API has no route that changes a track: saving deletes {editing.name} and creates it again with these groups (and puts it back if that is refused).</p>}
      <form class="perm-form" aria-label={title} onSubmit={(e) => void submit(e)} noValidate>
        <div class="gd-grid">
          <Field id="perm-track-name" label="Name" hint="1 to 64 of letters, digits, _ and -." problem={problems.name}>
            {(a) => <input {...a} type="text" value={name} autoComplete="off" spellcheck={false} aria-required="true" onInput={(e) => setName(inputText(e))} />}
          </Field>
        </div>
        <fieldset class="perm-steps" aria-describedby={problems.groups ? 'perm-track-groups-problem' : 'perm-track-groups-hint'}>
          <legend>Groups, lowest rank first</legend>
          <small id="perm-track-groups-hint" class="op-muted">
            At least two existing groups, each once.
          </small>
          {ladder.length === 0 ? (
            <p class="op-muted">No group on the track yet.</p>
          ) : (
            <ol class="perm-step-list" aria-label="Groups on the track">
              {ladder.map((g, i) => (
                <li key={g}>
                  <span class="perm-step-name">{g}</span>
                  <span class="perm-step-buttons">
                    <button type="button" id={`perm-step-${i}-up`} class="gd-secondary perm-small" disabled={i === 0} aria-label={`Move ${g} up`} onClick={() => move(i, -1)}>
                      Up
                    </button>
                    <button type="button" id={`perm-step-${i}-down`} class="gd-secondary perm-small" disabled={i === ladder.length - 1} aria-label={`Move ${g} down`} onClick={() => move(i, 1)}>
                      Down
                    </button>
                    <button type="button" class="gd-secondary perm-small" aria-label={`Take ${g} off the track`} onClick={() => setLadder(ladder.filter((_, j) => j !== i))}>
                      Remove
                    </button>
                  </span>
                </li>
              ))}
            </ol>
          )}
          <div class="perm-inline">
            <label for="perm-track-pick">Group to add</label>
            <select id="perm-track-pick" value={chosen} disabled={unused.length === 0} onChange={(e) => setPick(inputText(e))}>
              {unused.length === 0 && <option value="">Every group is on the track</option>}
              {unused.map((g) => (
                <option key={g.name} value={g.name}>
                  {g.name}
                </option>
              ))}
            </select>
            <button type="button" class="gd-secondary" disabled={!chosen} onClick={() => chosen && setLadder([...ladder, chosen])}>
              Add to the track
            </button>
          </div>
          {problems.groups && (
            <p class="gd-problem" id="perm-track-groups-problem">
              {problems.groups}
            </p>
          )}
        </fieldset>
        <div class="op-actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Saving…' : editing ? 'Save track' : 'Create track'}
          </button>
          {editing && (
            <button type="button" class="gd-secondary" onClick={onCancel}>
              Cancel
            </button>
          )}
        </div>
        <OutcomeLine outcome={action.outcome} />
      </form>
    </section>
  );
}

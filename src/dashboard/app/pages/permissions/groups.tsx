/**
 * The permission groups: every group with its parents, weight, priority and how many nodes it
 * holds, a form for a new one, and a delete that asks first (the default group cannot go; the
 * API says so, and the page does not offer it). Edit opens the group's editor (group-editor.tsx).
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { Link, useLocation } from 'wouter-preact';
import { OutcomeLine } from '../settings/outcome';
import { Field, inputText, ReadFailure, usePermsAction, type Access } from './common';
import { DeleteGroup } from './delete-group';
import { GroupEditor } from './group-editor';
import { groupHref } from './links';
import { createGroup, KEYS, listGroups, type PermGroup } from './requests';
import { groupNameProblem } from './rules';

export function GroupsView({ selected, access }: { selected: string | null; access: Access }) {
  const groups = useQuery({ queryKey: KEYS.groups, queryFn: listGroups });
  // What the last create or delete answered, kept while the view moves between the list and a group.
  // Shown only where it was given: the new group's editor, or the list after a delete.
  const [notice, setNotice] = useState<{ text: string; at: string | null } | null>(null);
  const say = (at: string | null) => (text: string | null) => setNotice(text === null ? null : { text, at });
  if (groups.isPending) return <p>Loading…</p>;
  if (groups.isError) return <ReadFailure error={groups.error} what="The permission groups" />;
  const list = groups.data.groups;
  const noticeLine = notice && (notice.at ?? '').toLowerCase() === (selected ?? '').toLowerCase() && (
    <p role="status" class="op-ok perm-notice">
      {notice.text}
    </p>
  );
  if (selected !== null) {
    const group = list.find((g) => g.name.toLowerCase() === selected.toLowerCase());
    if (!group) {
      return (
        <section class="op-card" aria-labelledby="perm-missing">
          <h2 id="perm-missing">No group {selected}</h2>
          <p>There is no permission group named {selected}: it may have been deleted meanwhile.</p>
          <p>
            <Link href="/permissions?view=groups">All groups</Link>
          </p>
        </section>
      );
    }
    return (
      <>
        {noticeLine}
        <GroupEditor key={group.name} group={group} groups={list} access={access} onNotice={say(null)} />
      </>
    );
  }
  return (
    <>
      {noticeLine}
      <GroupList groups={list} onNotice={say(null)} />
      <NewGroup groups={list} onNotice={setNotice} />
    </>
  );
}

function GroupList({ groups, onNotice }: { groups: PermGroup[]; onNotice: (message: string | null) => void }) {
  const [deleting, setDeleting] = useState<PermGroup | null>(null);
  return (
    <section class="op-card" aria-labelledby="perm-groups-title">
      <h2 id="perm-groups-title">Groups</h2>
      <p class="op-muted">
        Every player holds the default group; the others come by membership. A parent's permissions count as the group's own. Where a grant and a negation of
        different groups answer a node, the heavier group's weight decides (at equal weight, the negation); priority picks whose prefix a player shows.
      </p>
      <table class="gd-table perm-table" aria-label="Permission groups">
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Parents</th>
            <th scope="col">Weight</th>
            <th scope="col">Priority</th>
            <th scope="col">Permissions</th>
            <th scope="col">
              <span class="gd-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {groups.map((g) => (
            <tr key={g.name}>
              <th scope="row" data-label="Group">
                <Link href={groupHref(g.name)}>{g.name}</Link>
                {g.default && <span class="op-pill perm-pill-default">default</span>}
              </th>
              <td data-label="Parents" class="gd-wrap">
                {g.parents.length ? g.parents.join(', ') : <span class="op-muted">none</span>}
              </td>
              <td data-label="Weight">{g.weight}</td>
              <td data-label="Priority">{g.priority}</td>
              <td data-label="Permissions" class="gd-wrap">
                <NodeSummary group={g} />
              </td>
              <td class="gd-row-actions">
                <Link class="perm-button-link" href={groupHref(g.name)} aria-label={`Edit ${g.name}`}>
                  Edit
                </Link>
                {!g.default && (
                  <button
                    type="button"
                    class="gd-secondary"
                    aria-label={`Delete ${g.name}`}
                    onClick={() => {
                      onNotice(null);
                      setDeleting(g);
                    }}
                  >
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {deleting && (
        <DeleteGroup
          group={deleting}
          onDone={(message) => {
            setDeleting(null);
            onNotice(message);
          }}
          onClose={() => setDeleting(null)}
        />
      )}
    </section>
  );
}

/** "3 nodes: a.b, -c.d, e.*", the first few shown. */
function NodeSummary({ group }: { group: PermGroup }) {
  const n = group.permissions.length;
  if (n === 0) return <span class="op-muted">none</span>;
  const shown = group.permissions.slice(0, 4);
  return (
    <>
      {n} {n === 1 ? 'node' : 'nodes'}:{' '}
      {shown.map((node, i) => (
        <span key={node}>
          {i > 0 && ', '}
          <code class={node.startsWith('-') ? 'perm-negated' : undefined}>{node}</code>
        </span>
      ))}
      {n > shown.length && ' …'}
    </>
  );
}

function NewGroup({ groups, onNotice }: { groups: PermGroup[]; onNotice: (notice: { text: string; at: string | null } | null) => void }) {
  const [, navigate] = useLocation();
  const [name, setName] = useState('');
  const [isDefault, setDefault] = useState(false);
  const [problem, setProblem] = useState<string | undefined>();
  const action = usePermsAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const wanted = name.trim();
    const taken = groups.find((g) => g.name.toLowerCase() === wanted.toLowerCase());
    const why = groupNameProblem(wanted) ?? (taken ? `a permission group named "${taken.name}" already exists` : undefined);
    setProblem(why);
    if (why) return;
    onNotice(null);
    let message = '';
    const done = await action.run(async () => (message = (await createGroup(wanted, isDefault)).message));
    if (done) {
      setName('');
      setDefault(false);
      action.clear();
      onNotice({ text: `${message.charAt(0).toUpperCase()}${message.slice(1)}: give it its parents, weight and permissions here.`, at: wanted });
      navigate(groupHref(wanted));
    }
  };
  return (
    <section class="op-card" aria-labelledby="perm-new-group-title">
      <h2 id="perm-new-group-title">New group</h2>
      <form class="perm-form" aria-label="New group" onSubmit={(e) => void submit(e)} noValidate>
        <div class="gd-grid">
          <Field id="perm-new-group-name" label="Name" hint="1 to 64 of letters, digits, _ and -." problem={problem}>
            {(a) => <input {...a} type="text" value={name} autoComplete="off" spellcheck={false} aria-required="true" onInput={(e) => setName(inputText(e))} />}
          </Field>
          <div class="gd-field gd-check perm-check">
            <input id="perm-new-group-default" type="checkbox" checked={isDefault} onChange={(e) => setDefault((e.currentTarget as HTMLInputElement).checked)} />
            <label for="perm-new-group-default">The default group</label>
            <small>Every player holds it; the current default stops being it.</small>
          </div>
        </div>
        <div class="op-actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Creating…' : 'Create group'}
          </button>
        </div>
        <OutcomeLine outcome={action.outcome} />
      </form>
    </section>
  );
}

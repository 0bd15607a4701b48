/**
 * One group's editor: its prefix, suffix, priority, weight, default and parents (PUT with only
 * the fields changed, so an edit never writes back what someone else changed meanwhile), its
 * permissions row by row with their server, world and expiry (added and removed one at a time
 * through the nodes route, never by rewriting the whole list), its meta, and its delete.
 */
import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { OutcomeLine } from '../settings/outcome';
import { EMPTY_SCOPE, ExpiryText, Field, inputText, ScopeFields, scopeBody, useHeadingFocus, usePermsAction, useRefreshAtExpiry, whereWords, type Access, type ScopeInput } from './common';
import { DeleteGroup } from './delete-group';
import { MetaCard } from './meta';
import { addGroupPermission, KEYS, removeGroupPermission, removeGroupMeta, setGroupMeta, updateGroup, type PermGroup, type ScopedRow } from './requests';
import { MAX_PARENTS, nodeProblem, normalizeNode, numberProblem, textProblem } from './rules';

interface Props {
  group: PermGroup;
  groups: PermGroup[];
  access: Access;
  onNotice: (message: string | null) => void;
}

export function GroupEditor({ group, groups, access, onNotice }: Props) {
  const [deleting, setDeleting] = useState(false);
  const heading = useHeadingFocus<HTMLHeadingElement>();
  return (
    <>
      <nav class="perm-crumbs" aria-label="Breadcrumb">
        <Link href="/permissions?view=groups">All groups</Link> <span aria-hidden="true">/</span> <span aria-current="page">{group.name}</span>
      </nav>
      <div class="perm-head">
        <h2 class="perm-title" ref={heading} tabIndex={-1}>
          Group {group.name}
        </h2>
        {group.default && <span class="op-pill perm-pill-default">default</span>}
      </div>
      <SettingsCard group={group} groups={groups} access={access} />
      <PermissionsCard group={group} />
      <MetaCard
        id="perm-group-meta"
        owner={group.name}
        meta={group.meta}
        refresh={KEYS.groups}
        set={(key, value) => setGroupMeta(group.name, key, value)}
        remove={(key) => removeGroupMeta(group.name, key)}
      />
      <section class="op-card" aria-labelledby="perm-delete-title">
        <h3 id="perm-delete-title">Delete</h3>
        {group.default ? (
          <p class="op-muted">{group.name} is the default group and cannot be deleted; make another group the default first.</p>
        ) : (
          <div class="op-actions">
            <button type="button" class="gd-danger" onClick={() => setDeleting(true)}>
              Delete {group.name}
            </button>
          </div>
        )}
      </section>
      {deleting && (
        <DeleteGroup
          group={group}
          onDone={(message) => {
            setDeleting(false);
            onNotice(message);
          }}
          onClose={() => setDeleting(false)}
        />
      )}
    </>
  );
}

interface Settings {
  prefix: string;
  suffix: string;
  priority: string;
  weight: string;
  default: boolean;
  parents: string[];
}

const settingsOf = (g: PermGroup): Settings => ({ prefix: g.prefix, suffix: g.suffix, priority: String(g.priority), weight: String(g.weight), default: g.default, parents: [...g.parents] });
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** The groups that inherit from `name`, directly or through others: making one a parent would close a cycle. */
function heirsOf(name: string, groups: PermGroup[]): Set<string> {
  const key = name.toLowerCase();
  const heirs = new Set<string>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const g of groups) {
      const k = g.name.toLowerCase();
      if (heirs.has(k) || k === key) continue;
      if (g.parents.some((p) => p.toLowerCase() === key || heirs.has(p.toLowerCase()))) {
        heirs.add(k);
        grew = true;
      }
    }
  }
  return heirs;
}

function SettingsCard({ group, groups, access }: { group: PermGroup; groups: PermGroup[]; access: Access }) {
  const [since, setSince] = useState<Settings>(() => settingsOf(group));
  const [values, setValues] = useState<Settings>(since);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const action = usePermsAction();
  const set = (patch: Partial<Settings>) => setValues((v) => ({ ...v, ...patch }));

  // A change made elsewhere shows here while this form is untouched.
  useEffect(() => {
    const now = settingsOf(group);
    if (same(values, since) && !same(now, since)) {
      setSince(now);
      setValues(now);
    }
  }, [group]);

  const heirs = heirsOf(group.name, groups);
  const others = groups.filter((g) => g.name.toLowerCase() !== group.name.toLowerCase());

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Record<string, string> = {};
    const put = (field: string, why: string | undefined) => why && (found[field] = why);
    put('prefix', textProblem('prefix', values.prefix));
    put('suffix', textProblem('suffix', values.suffix));
    put('priority', numberProblem('priority', values.priority));
    put('weight', numberProblem('weight', values.weight));
    if (values.parents.length > MAX_PARENTS) found.parents = `a group has at most ${MAX_PARENTS} parents`;
    const cycle = values.parents.find((p) => heirs.has(p.toLowerCase()));
    if (cycle) found.parents = `"${cycle}" already inherits from "${group.name}"; making it a parent would close a cycle`;
    if (since.default && !values.default) found.default = `"${group.name}" is the default group; make another group the default instead`;
    setProblems(found);
    if (Object.keys(found).length) return;
    const body: Record<string, unknown> = {};
    if (values.prefix !== since.prefix) body.prefix = values.prefix;
    if (values.suffix !== since.suffix) body.suffix = values.suffix;
    if (Number(values.priority) !== Number(since.priority)) body.priority = Number(values.priority);
    if (Number(values.weight) !== Number(since.weight)) body.weight = Number(values.weight);
    if (values.default !== since.default) body.default = values.default;
    if (!same(values.parents, since.parents)) body.parents = values.parents;
    if (Object.keys(body).length === 0) {
      action.setOutcome({ ok: true, text: 'Nothing to save: no field differs from the group as it was read.' });
      return;
    }
    let saved: PermGroup | undefined;
    await action.run(async () => {
      const answer = await updateGroup(group.name, body);
      saved = answer.group;
      return answer.message;
    });
    if (saved) {
      const now = settingsOf(saved);
      setSince(now);
      setValues(now);
    }
  };

  const toggleParent = (name: string, on: boolean) => set({ parents: on ? [...values.parents, name] : values.parents.filter((p) => p !== name) });

  return (
    <section class="op-card" aria-labelledby="perm-settings-title">
      <h3 id="perm-settings-title">Settings</h3>
      <form class="perm-form" aria-label={`Settings of ${group.name}`} onSubmit={(e) => void submit(e)} noValidate>
        <div class="gd-grid">
          <Field id="perm-weight" label="Weight" hint="Decides a grant against a negation from another group: the heavier wins." problem={problems.weight}>
            {(a) => <input {...a} type="number" inputMode="numeric" step={1} min={-1_000_000} max={1_000_000} value={values.weight} onInput={(e) => set({ weight: inputText(e) })} />}
          </Field>
          <Field id="perm-priority" label="Priority" hint="The member's group with the highest shows its prefix and suffix." problem={problems.priority}>
            {(a) => <input {...a} type="number" inputMode="numeric" step={1} min={-1_000_000} max={1_000_000} value={values.priority} onInput={(e) => set({ priority: inputText(e) })} />}
          </Field>
          <Field id="perm-prefix" label="Prefix" hint="Chat prefix, one line; & colour codes as the plugins read them." problem={problems.prefix}>
            {(a) => <input {...a} type="text" value={values.prefix} autoComplete="off" spellcheck={false} onInput={(e) => set({ prefix: inputText(e) })} />}
          </Field>
          <Field id="perm-suffix" label="Suffix" problem={problems.suffix}>
            {(a) => <input {...a} type="text" value={values.suffix} autoComplete="off" spellcheck={false} onInput={(e) => set({ suffix: inputText(e) })} />}
          </Field>
          <div class={`gd-field gd-check perm-check${problems.default ? ' gd-invalid' : ''}`}>
            <input
              id="perm-default"
              type="checkbox"
              checked={values.default}
              aria-describedby={problems.default ? 'perm-default-hint perm-default-problem' : 'perm-default-hint'}
              onChange={(e) => set({ default: (e.currentTarget as HTMLInputElement).checked })}
            />
            <label for="perm-default">The default group</label>
            <small id="perm-default-hint">{since.default ? 'To change it, make another group the default.' : 'Every player holds it; the current default stops being it.'}</small>
            {problems.default && (
              <p class="gd-problem" id="perm-default-problem">
                {problems.default}
              </p>
            )}
          </div>
        </div>
        <fieldset class="perm-parents" aria-describedby={problems.parents ? 'perm-parents-problem' : undefined}>
          <legend>Parents</legend>
          {others.length === 0 && <p class="op-muted">No other group to inherit from.</p>}
          <ul class="perm-checklist">
            {others.map((g) => {
              const id = `perm-parent-${g.name}`;
              const closes = heirs.has(g.name.toLowerCase());
              const checked = values.parents.some((p) => p.toLowerCase() === g.name.toLowerCase());
              return (
                <li key={g.name}>
                  <input id={id} type="checkbox" checked={checked} disabled={closes && !checked} aria-describedby={closes ? `${id}-why` : undefined} onChange={(e) => toggleParent(g.name, (e.currentTarget as HTMLInputElement).checked)} />
                  <label for={id}>{g.name}</label>
                  {closes && (
                    <small id={`${id}-why`} class="op-muted">
                      inherits from {group.name}: a cycle
                    </small>
                  )}
                </li>
              );
            })}
          </ul>
          {problems.parents && (
            <p class="gd-problem" id="perm-parents-problem">
              {problems.parents}
            </p>
          )}
        </fieldset>
        {access.canManage && !access.admin && <p class="op-muted">A parent that carries admin, or making a group with admin the default, needs an admin session: the controller refuses it otherwise.</p>}
        <div class="op-actions">
          <button type="submit" disabled={action.busy}>
            {action.busy ? 'Saving…' : 'Save settings'}
          </button>
          <button
            type="button"
            class="gd-secondary"
            disabled={action.busy || same(values, since)}
            onClick={() => {
              setValues(since);
              setProblems({});
              action.clear();
            }}
          >
            Undo changes
          </button>
        </div>
        <OutcomeLine outcome={action.outcome} />
      </form>
    </section>
  );
}

/** The group's rows: an unscoped node is one row, a scoped one a row per server/world/expiry. */
function rowsOf(group: PermGroup): (ScopedRow & { permission: string })[] {
  return group.permissions.flatMap((permission) => {
    const scoped = group.scopedPermissions.filter((r) => r.permission === permission);
    return scoped.length ? scoped : [{ permission }];
  });
}

function scopeLabel(row: ScopedRow): string {
  const where = whereWords(row);
  return where === 'everywhere' ? '' : ` on ${where}`;
}

function PermissionsCard({ group }: { group: PermGroup }) {
  const rows = rowsOf(group);
  const remove = usePermsAction();
  useRefreshAtExpiry(KEYS.groups, rows.map((r) => r.expiresAt));
  return (
    <section class="op-card" aria-labelledby="perm-nodes-title">
      <h3 id="perm-nodes-title">Permissions</h3>
      <p class="op-muted">A node that starts with - is negated: it denies. A wildcard (a.b.* or *) answers everything below it.</p>
      {rows.length === 0 ? (
        <p class="op-muted">{group.name} holds no permission of its own yet.</p>
      ) : (
        <table class="gd-table perm-table" aria-label={`Permissions of ${group.name}`}>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Effect</th>
              <th scope="col">Where</th>
              <th scope="col">Expires</th>
              <th scope="col">
                <span class="gd-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const negated = row.permission.startsWith('-');
              return (
                <tr key={`${row.permission}|${row.server ?? ''}|${row.world ?? ''}`}>
                  <th scope="row" data-label="Node" class="perm-node-cell">
                    <code class={negated ? 'perm-negated' : undefined}>{row.permission}</code>
                  </th>
                  <td data-label="Effect">{negated ? <span class="op-pill perm-pill-deny">denies</span> : <span class="op-pill perm-pill-grant">grants</span>}</td>
                  <td data-label="Where">{whereWords(row)}</td>
                  <td data-label="Expires" class="gd-wrap">
                    <ExpiryText iso={row.expiresAt} />
                  </td>
                  <td class="gd-row-actions">
                    <button
                      type="button"
                      class="gd-secondary"
                      disabled={remove.busy}
                      aria-label={`Remove ${row.permission}${scopeLabel(row)} from ${group.name}`}
                      onClick={() =>
                        void remove.run(async () => (await removeGroupPermission(group.name, { permission: row.permission, ...(row.server ? { server: row.server } : {}), ...(row.world ? { world: row.world } : {}) })).message)
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
      <AddPermission group={group} />
    </section>
  );
}

function AddPermission({ group }: { group: PermGroup }) {
  const [node, setNode] = useState('');
  const [scope, setScope] = useState<ScopeInput>(EMPTY_SCOPE);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const action = usePermsAction();
  const negated = node.trim().startsWith('-');
  const setNegated = (on: boolean) => {
    const bare = node.trim().replace(/^-/, '');
    setNode(on ? `-${bare}` : bare);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const permission = normalizeNode(node);
    const { problems: found, body } = scopeBody(scope, Date.now());
    const why = nodeProblem(permission);
    if (why) found.node = why;
    setProblems(found);
    if (Object.keys(found).length) return;
    const done = await action.run(async () => (await addGroupPermission(group.name, { permission, ...body })).message);
    if (done) {
      setNode('');
      setScope(EMPTY_SCOPE);
    }
  };
  return (
    <form class="perm-form perm-subform" aria-label={`Add a permission to ${group.name}`} onSubmit={(e) => void submit(e)} noValidate>
      <h4>Add a permission</h4>
      <div class="gd-grid">
        <Field id="perm-add-node" label="Node" hint="e.g. essentials.fly, worldedit.*, or -essentials.fly to deny." problem={problems.node}>
          {(a) => <input {...a} type="text" value={node} autoComplete="off" spellcheck={false} aria-required="true" onInput={(e) => setNode(inputText(e))} />}
        </Field>
        <div class="gd-field gd-check perm-check">
          <input id="perm-add-negate" type="checkbox" checked={negated} onChange={(e) => setNegated((e.currentTarget as HTMLInputElement).checked)} aria-describedby="perm-add-negate-hint" />
          <label for="perm-add-negate">Deny (negated node)</label>
          <small id="perm-add-negate-hint">Puts a - before the node.</small>
        </div>
        <ScopeFields id="perm-add" value={scope} problems={problems} onChange={setScope} />
      </div>
      <p class="op-muted">Unscoped, a node replaces its scoped rows; scoped, it replaces the unscoped one; the same server and world again only sets the new expiry.</p>
      <div class="op-actions">
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Adding…' : 'Add permission'}
        </button>
      </div>
      <OutcomeLine outcome={action.outcome} />
    </form>
  );
}

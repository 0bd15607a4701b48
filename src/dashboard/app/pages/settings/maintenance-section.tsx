/**
 * Maintenance: the whole network on or off (with a reason), its server-list and kick texts, the
 * whitelist of players let in meanwhile, and each group's own switch and kick message. Every
 * mutation answers the full status, which replaces the query's; MAINTENANCE_* events (a change
 * made in the console or by another operator) read it again.
 */
import { useEffect, useState } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useLiveRefresh } from '../../live-refresh';
import { FieldsForm, type FieldSpec } from './fields-form';
import { LoadFailure, OutcomeLine, useAction } from './outcome';
import { getMaintenance, GROUPS_KEY, listGroups, MAINTENANCE_KEY, putGlobalTexts, putGroupKickMessage, setGlobalMaintenance, setGroupMaintenance, statusOf, whitelist, type GroupMaintenance, type MaintenanceStatus } from './requests';

const TEXT_FIELDS: FieldSpec[] = [
  { key: 'motdLine1', label: 'Server list, line 1', kind: 'text', maxLength: 1024 },
  { key: 'motdLine2', label: 'Server list, line 2', kind: 'text', maxLength: 1024 },
  { key: 'protocolText', label: 'Version text', kind: 'text', maxLength: 256, hint: 'Shown in place of the version during maintenance.' },
  { key: 'kickMessage', label: 'Kick message', kind: 'textarea', maxLength: 4096, hint: 'What a player who is not whitelisted sees (MiniMessage).' },
];

export function MaintenanceSection() {
  const queries = useQueryClient();
  const status = useQuery({ queryKey: MAINTENANCE_KEY, queryFn: getMaintenance });
  useLiveRefresh([MAINTENANCE_KEY], (type) => type.startsWith('MAINTENANCE_'));
  const apply = (answer: Parameters<typeof statusOf>[0]) => {
    queries.setQueryData(MAINTENANCE_KEY, statusOf(answer));
    return answer.message;
  };
  return (
    <section class="op-card" aria-labelledby="st-maintenance">
      <h2 id="st-maintenance">Maintenance</h2>
      {status.isPending && <p>Loading…</p>}
      {status.isError && <LoadFailure error={status.error} />}
      {status.data && (
        <>
          <GlobalSwitch status={status.data} apply={apply} />
          <FieldsForm title="Maintenance texts" fields={TEXT_FIELDS} values={status.data.global as unknown as Record<string, unknown>} save={async (body) => `Saved: ${apply(await putGlobalTexts(body))}.`} />
          <Whitelist entries={status.data.global.whitelist} apply={apply} />
          <GroupSwitches groups={status.data.groups} apply={apply} />
        </>
      )}
    </section>
  );
}

type Apply = (answer: Parameters<typeof statusOf>[0]) => string;

function GlobalSwitch({ status, apply }: { status: MaintenanceStatus; apply: Apply }) {
  const { enabled } = status.global;
  const [reason, setReason] = useState(status.global.reason);
  const action = useAction();
  const toggle = (event: Event) => {
    event.preventDefault();
    void action.run(async () => apply(await setGlobalMaintenance(!enabled, enabled ? '' : reason.trim())));
  };
  return (
    <form class="op-form" aria-label="Global maintenance" onSubmit={toggle}>
      <h3>
        Whole network <span class={enabled ? 'op-pill op-pill-on' : 'op-pill'}>{enabled ? 'in maintenance' : 'open'}</span>
      </h3>
      {enabled && status.global.reason && <p class="op-muted">Reason: {status.global.reason}</p>}
      {!enabled && (
        <div class="op-field">
          <label for="st-maintenance-reason">Reason (for operators)</label>
          <input id="st-maintenance-reason" maxLength={256} value={reason} onInput={(e) => setReason((e.target as HTMLInputElement).value)} />
        </div>
      )}
      <div class="op-actions">
        <button type="submit" class={enabled ? '' : 'op-danger'} disabled={action.busy}>
          {enabled ? 'End maintenance' : 'Start maintenance'}
        </button>
      </div>
      <OutcomeLine outcome={action.outcome} />
    </form>
  );
}

function Whitelist({ entries, apply }: { entries: string[]; apply: Apply }) {
  const [entry, setEntry] = useState('');
  const action = useAction();
  const add = (event: Event) => {
    event.preventDefault();
    void action.run(async () => {
      const text = apply(await whitelist('POST', entry.trim()));
      setEntry('');
      return text;
    });
  };
  return (
    <div class="op-form">
      <h3>Whitelist</h3>
      <p class="op-muted">Players (names or UUIDs) who may join during maintenance.</p>
      {entries.length === 0 ? (
        <p class="op-muted">Nobody yet.</p>
      ) : (
        <ul class="st-whitelist" aria-label="Whitelisted players">
          {entries.map((name) => (
            <li key={name}>
              <span>{name}</span>
              <button type="button" class="op-secondary" disabled={action.busy} aria-label={`Remove ${name}`} onClick={() => void action.run(async () => apply(await whitelist('DELETE', name)))}>
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="op-inline" aria-label="Add to the whitelist" onSubmit={add}>
        <label for="st-whitelist-entry">Player name or UUID</label>
        <input id="st-whitelist-entry" required value={entry} onInput={(e) => setEntry((e.target as HTMLInputElement).value)} />
        <button type="submit" disabled={action.busy}>
          Add
        </button>
      </form>
      <OutcomeLine outcome={action.outcome} />
    </div>
  );
}

/** Every group (GET /api/groups), with its maintenance state; a group never switched is off. */
function GroupSwitches({ groups, apply }: { groups: Record<string, GroupMaintenance>; apply: Apply }) {
  const list = useQuery({ queryKey: GROUPS_KEY, queryFn: listGroups });
  const names = [...new Set([...(list.data?.groups.map((g) => g.name) ?? []), ...Object.keys(groups)])].sort();
  return (
    <div class="op-form">
      <h3>Groups</h3>
      {list.isError && <LoadFailure error={list.error} />}
      {list.data && names.length === 0 && <p class="op-muted">No groups yet.</p>}
      <div class="st-groups">
        {names.map((name) => (
          <GroupRow key={name} name={name} state={groups[name]} apply={apply} />
        ))}
      </div>
    </div>
  );
}

function GroupRow({ name, state, apply }: { name: string; state: GroupMaintenance | undefined; apply: Apply }) {
  const enabled = state?.enabled ?? false;
  const [kick, setKick] = useState(state?.kickMessage ?? '');
  const action = useAction();
  useEffect(() => setKick(state?.kickMessage ?? ''), [state?.kickMessage]);
  const id = `st-kick-${name}`;
  return (
    <article class="st-group" aria-label={`Group ${name}`}>
      <div class="st-group-head">
        <strong>{name}</strong>
        <span class={enabled ? 'op-pill op-pill-on' : 'op-pill'}>{enabled ? 'in maintenance' : 'open'}</span>
        <button
          type="button"
          class={enabled ? 'op-secondary' : 'op-secondary op-danger-text'}
          aria-label={enabled ? `End maintenance of ${name}` : `Start maintenance of ${name}`}
          disabled={action.busy}
          onClick={() => void action.run(async () => apply(await setGroupMaintenance(name, !enabled, '')))}
        >
          {enabled ? 'End maintenance' : 'Start maintenance'}
        </button>
      </div>
      <form
        class="op-inline"
        aria-label={`Kick message of ${name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void action.run(async () => apply(await putGroupKickMessage(name, kick)));
        }}
      >
        <label for={id}>Kick message</label>
        <input id={id} maxLength={4096} placeholder="the default text" value={kick} onInput={(e) => setKick((e.target as HTMLInputElement).value)} />
        <button type="submit" class="op-secondary" disabled={action.busy}>
          Save
        </button>
      </form>
      <OutcomeLine outcome={action.outcome} />
    </article>
  );
}

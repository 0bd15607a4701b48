import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useMemo } from 'preact/hooks';
import { bodyOf, rawValues } from '../../forms/fields';
import { RecordForm } from '../../forms/record-form';
import { softwareControls } from '../../forms/software-fields';
import { createGroup, getGroup, GROUPS_KEY, updateGroup } from './requests';
import { GROUP_DEFAULTS, GROUP_KEYS, GROUP_SECTIONS, GROUP_SPECS, groupCrossCheck } from './rules';

interface Props {
  /** The group to edit; null creates one. */
  name: string | null;
  /** Back to the list, with what the controller answered. */
  onDone: (message: string) => void;
  onCancel: () => void;
}

/**
 * Create or edit a group. Create sends every field (the defaults prefilled, the version the
 * upstream's latest); edit loads the group afresh and sends only what the operator changed (the
 * API keeps the rest), never the name, which cannot change.
 */
export function GroupForm({ name, onDone, onCancel }: Props) {
  const queries = useQueryClient();
  // Loaded once for the form: a refetch must not reset what the operator is typing.
  const existing = useQuery({ queryKey: ['group', name], queryFn: () => getGroup(name!), enabled: name !== null, staleTime: Infinity, gcTime: 0 });
  // The software, version and loader pickers; on create the version list's latest is chosen.
  const software = useMemo(() => softwareControls('group', name === null), [name]);

  if (name !== null && existing.isPending) return <p>Loading…</p>;
  if (name !== null && existing.isError) {
    return (
      <section>
        <h1>Edit group {name}</h1>
        <p class="error" role="alert">
          {existing.error.message}
        </p>
        <button type="button" class="gd-secondary" onClick={onCancel}>
          Back to the groups
        </button>
      </section>
    );
  }

  const initial = existing.data ? rawValues(GROUP_SPECS, existing.data) : GROUP_DEFAULTS;
  const submit = async (values: typeof initial) => {
    if (name === null) {
      const answer = await createGroup(bodyOf(GROUP_SPECS, values, GROUP_KEYS));
      await queries.invalidateQueries({ queryKey: GROUPS_KEY });
      return onDone(answer.message);
    }
    const body = bodyOf(
      GROUP_SPECS,
      values,
      GROUP_KEYS.filter((key) => key !== 'name'),
      initial,
    );
    if (Object.keys(body).length === 0) return onDone(`Nothing changed in group ${name}.`);
    const answer = await updateGroup(name, body);
    await queries.invalidateQueries({ queryKey: GROUPS_KEY });
    onDone(answer.message);
  };

  return (
    <section>
      <h1>{name === null ? 'New group' : `Edit group ${name}`}</h1>
      <RecordForm
        idPrefix="group"
        specs={GROUP_SPECS}
        sections={GROUP_SECTIONS}
        initial={initial}
        readOnly={name === null ? [] : ['name']}
        crossCheck={groupCrossCheck}
        controls={software.controls}
        follow={software.follow}
        submitLabel={name === null ? 'Create group' : 'Save changes'}
        onSubmit={submit}
        onCancel={onCancel}
      />
    </section>
  );
}

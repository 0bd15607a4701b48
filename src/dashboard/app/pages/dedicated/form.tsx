import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { useMemo } from 'preact/hooks';
import { bodyOf, rawValues, type RawValues } from '../../forms/fields';
import { RecordForm } from '../../forms/record-form';
import { softwareControls } from '../../forms/software-fields';
import { createDedicated, DEDICATED_KEY, getDedicated, listDedicated, updateDedicated } from './requests';
import { DEDICATED_DEFAULTS, DEDICATED_KEYS, DEDICATED_SECTIONS, DEDICATED_SPECS, dedicatedCrossCheck } from './rules';

interface Props {
  /** The service to edit; null creates one. */
  name: string | null;
  /** Back to the list, with what the controller answered. */
  onDone: (message: string) => void;
  onCancel: () => void;
}

/**
 * Create or edit a dedicated service. Create sends every field; edit loads the service afresh
 * and sends only what changed (the API keeps the rest, a start command included), never the
 * name. The list's ports let the form refuse a port another service has before asking.
 */
export function DedicatedForm({ name, onDone, onCancel }: Props) {
  const queries = useQueryClient();
  const existing = useQuery({ queryKey: ['dedicated-one', name], queryFn: () => getDedicated(name!), enabled: name !== null, staleTime: Infinity, gcTime: 0 });
  const others = useQuery({ queryKey: DEDICATED_KEY, queryFn: listDedicated });
  const software = useMemo(() => softwareControls('dedicated', name === null), [name]);

  if ((name !== null && existing.isPending) || others.isPending) return <p>Loading…</p>;
  const failed = existing.error ?? others.error;
  if (failed) {
    return (
      <section>
        <h1>{name === null ? 'New dedicated service' : `Edit ${name}`}</h1>
        <p class="error" role="alert">
          {failed.message}
        </p>
        <button type="button" class="gd-secondary" onClick={onCancel}>
          Back to the dedicated services
        </button>
      </section>
    );
  }

  const initial = existing.data ? rawValues(DEDICATED_SPECS, existing.data) : DEDICATED_DEFAULTS;
  const submit = async (values: RawValues) => {
    if (name === null) {
      const answer = await createDedicated(bodyOf(DEDICATED_SPECS, values, DEDICATED_KEYS));
      await queries.invalidateQueries({ queryKey: DEDICATED_KEY });
      return onDone(answer.message);
    }
    const body = bodyOf(
      DEDICATED_SPECS,
      values,
      DEDICATED_KEYS.filter((key) => key !== 'name'),
      initial,
    );
    if (Object.keys(body).length === 0) return onDone(`Nothing changed in ${name}.`);
    const answer = await updateDedicated(name, body);
    await queries.invalidateQueries({ queryKey: DEDICATED_KEY });
    onDone(answer.message);
  };

  return (
    <section>
      <h1>{name === null ? 'New dedicated service' : `Edit ${name}`}</h1>
      {name !== null && <p class="notice">A running service picks changes up at its next start.</p>}
      <RecordForm
        idPrefix="dedicated"
        specs={DEDICATED_SPECS}
        sections={DEDICATED_SECTIONS}
        initial={initial}
        readOnly={name === null ? [] : ['name']}
        crossCheck={dedicatedCrossCheck(others.data?.services ?? [], name)}
        controls={software.controls}
        follow={software.follow}
        submitLabel={name === null ? 'Create service' : 'Save changes'}
        onSubmit={submit}
        onCancel={onCancel}
      />
    </section>
  );
}

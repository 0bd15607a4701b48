/**
 * Start from a group: a new instance of the chosen group (POST /api/services/{group}/start, the
 * path naming a GROUP), the answer or the refusal (409 at the group's maximum, a quarantine…)
 * shown in the API's words.
 */
import { useState } from 'preact/hooks';
import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { GROUPS_KEY, SERVICES_KEY } from './live';
import type { ActionAnswer } from './model';

interface GroupList {
  groups: { name: string; activeInstances: number; maxInstances: number }[];
}

export function GroupStart() {
  const queries = useQueryClient();
  const groups = useQuery({ queryKey: GROUPS_KEY, queryFn: () => api<GroupList>('/api/groups') });
  const [chosen, setChosen] = useState('');
  const start = useMutation({
    mutationFn: (group: string) => api<ActionAnswer>(`/api/services/${encodeURIComponent(group)}/start`, { method: 'POST' }),
    onSettled: () => {
      void queries.invalidateQueries({ queryKey: SERVICES_KEY });
      void queries.invalidateQueries({ queryKey: GROUPS_KEY });
    },
  });
  const list = groups.data?.groups ?? [];
  // The first group until the operator picks one (and again if the picked one was deleted).
  const group = list.some((g) => g.name === chosen) ? chosen : (list[0]?.name ?? '');

  return (
    <form
      class="svc-group-start"
      aria-label="Start from a group"
      onSubmit={(e) => {
        e.preventDefault();
        if (group !== '') start.mutate(group);
      }}
    >
      <label>
        <span>Start a new instance of</span>
        <select value={group} disabled={list.length === 0} onChange={(e) => setChosen(e.currentTarget.value)}>
          {list.map((g) => (
            <option key={g.name} value={g.name}>
              {g.name} ({g.activeInstances}/{g.maxInstances})
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={group === '' || start.isPending}>
        {start.isPending ? 'Starting…' : 'Start'}
      </button>
      {groups.isError && <p class="error" role="alert">Groups could not be read: {groups.error.message}</p>}
      {groups.isSuccess && list.length === 0 && <p class="notice">No groups yet: create one on the Groups page.</p>}
      {start.isSuccess && <p role="status">{start.data.message}</p>}
      {start.isError && <p class="error" role="alert">{start.error.message}</p>}
    </form>
  );
}

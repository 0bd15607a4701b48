/** The list's filters, all applied in the browser: group, state and part of the name. */
import { SERVICE_STATES, type Filters } from './model';

export function FilterBar({ filters, groups, onChange }: { filters: Filters; groups: string[]; onChange: (next: Filters) => void }) {
  return (
    <div class="svc-filters" role="search" aria-label="Filter services">
      <label>
        <span>Group</span>
        <select value={filters.group} onChange={(e) => onChange({ ...filters, group: e.currentTarget.value })}>
          <option value="">All groups</option>
          {groups.map((g) => (
            <option key={g} value={g}>
              {g}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>State</span>
        <select value={filters.state} onChange={(e) => onChange({ ...filters, state: e.currentTarget.value })}>
          <option value="">All states</option>
          {SERVICE_STATES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Name</span>
        <input type="search" placeholder="Filter by name" value={filters.text} onInput={(e) => onChange({ ...filters, text: e.currentTarget.value })} />
      </label>
    </div>
  );
}

/** A group's rules as a list beside the grid (its legend too: each rule's colour), with Edit for those who may change them. */
import type { Rule } from './model';
import { daysText, windowText } from './week';

interface Props {
  group: string;
  rules: readonly Rule[];
  editable: boolean;
  onEdit: (index: number) => void;
}

export function RulesTable({ group, rules, editable, onEdit }: Props) {
  if (rules.length === 0) {
    return <p class="sc-muted">No rule yet{editable ? ': add one, or press Enter on an hour of the grid.' : '.'}</p>;
  }
  return (
    <table class="sc-rules stack">
      <caption class="sc-hidden">Rules of {group}</caption>
      <thead>
        <tr>
          <th scope="col">Rule</th>
          <th scope="col">Days</th>
          <th scope="col">Open</th>
          <th scope="col">Minimum</th>
          <th scope="col">Maximum</th>
          {editable && (
            <th scope="col">
              <span class="sc-hidden">Actions</span>
            </th>
          )}
        </tr>
      </thead>
      <tbody>
        {rules.map((rule, i) => (
          <tr key={rule.name} data-rule={rule.name}>
            <th scope="row">
              <span class={`sc-swatch sc-c${i % 8}`} aria-hidden="true" />
              {rule.name}
            </th>
            <td data-label="Days">{daysText(rule.days)}</td>
            <td data-label="Open">{windowText(rule)}</td>
            <td data-label="Minimum">{rule.minInstances}</td>
            <td data-label="Maximum">{rule.maxInstances ?? <span class="sc-muted">the group’s own</span>}</td>
            {editable && (
              <td class="sc-row-actions">
                <button type="button" class="sc-secondary" onClick={() => onEdit(i)} aria-label={`Edit rule ${rule.name}`}>
                  Edit
                </button>
              </td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/**
 * Each DYNAMIC and LOBBY group now (GET /api/scaling/status): the minimum the scaling engine
 * works with and what raised it, the maximum, the rule in force or warming up, whether the
 * schedule and the prediction are on, and a file that cannot be used in the API's words. The
 * status has no maximum nor instance count; they come from GET /api/groups where the sign-in may
 * read groups (the maximum is then the group's, lowered by the rule in force as the engine does).
 */
import type { UseQueryResult } from '@tanstack/preact-query';
import type { GroupFacts, GroupStatus, Status } from './model';
import { refusalText } from './words';

interface Props {
  status: UseQueryResult<Status>;
  facts: readonly GroupFacts[] | undefined;
  selected: string;
  onSelect: (group: string) => void;
}

/** The maximum the engine works with: the group's, lowered by the rule in force (never below the group's minimum). */
export function effectiveMax(g: GroupStatus, facts: GroupFacts | undefined): number | null {
  if (!facts) return null;
  const rule = g.activeRule;
  const byPrediction = g.effectiveSource?.startsWith('the prediction') ?? false;
  if (!rule || byPrediction || rule.maxInstances === null) return facts.maxInstances;
  return Math.max(facts.minInstances, Math.min(facts.maxInstances, rule.maxInstances));
}

export function GroupsNow({ status, facts, selected, onSelect }: Props) {
  const factOf = (name: string) => facts?.find((f) => f.name.toLowerCase() === name.toLowerCase());
  return (
    <section class="sc-card" aria-labelledby="sc-now-title">
      <h2 id="sc-now-title">Groups now</h2>
      {status.isPending && <p class="sc-muted">Loading…</p>}
      {status.isError && (
        <p role="alert" class="sc-error">
          {refusalText(status.error, 'The groups could not be read')}
        </p>
      )}
      {status.data && status.data.groups.length === 0 && <p class="sc-muted">No DYNAMIC or LOBBY group yet: smart scaling applies to those (a STATIC group keeps its own bounds).</p>}
      {status.data && status.data.groups.length > 0 && (
        <table class="sc-bounds stack">
          <caption class="sc-hidden">Each group’s bounds now</caption>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Minimum now</th>
              <th scope="col">Maximum now</th>
              {facts && <th scope="col">Running</th>}
              <th scope="col">Rule</th>
              <th scope="col">Schedule</th>
              <th scope="col">Prediction</th>
            </tr>
          </thead>
          <tbody>
            {status.data.groups.map((g) => {
              const f = factOf(g.group);
              const max = effectiveMax(g, f);
              return (
                <tr key={g.group} data-group={g.group} aria-current={g.group === selected ? 'true' : undefined}>
                  <th scope="row">
                    <button type="button" class="sc-link" onClick={() => onSelect(g.group)} aria-label={`Show ${g.group}`} aria-pressed={g.group === selected}>
                      {g.group}
                    </button>
                    {g.problem && (
                      <p class="sc-error sc-problem-line" role="note">
                        Smart scaling is off for {g.group}: {g.problem}
                      </p>
                    )}
                  </th>
                  <td data-label="Minimum now" class="sc-figure" data-field="min">
                    <strong>{g.effectiveMinInstances}</strong>
                    <small>{g.effectiveSource ? ` raised from ${g.minInstances} by ${g.effectiveSource}` : ' the group’s own'}</small>
                  </td>
                  <td data-label="Maximum now" class="sc-figure" data-field="max">
                    {max === null ? (
                      g.activeRule?.maxInstances != null ? (
                        <small>at most {g.activeRule.maxInstances} by the rule</small>
                      ) : (
                        <small class="sc-muted">the group’s own</small>
                      )
                    ) : (
                      <>
                        <strong>{max}</strong>
                        {f && max < f.maxInstances && <small> lowered from {f.maxInstances} by the rule</small>}
                      </>
                    )}
                  </td>
                  {facts && <td data-label="Running">{f ? f.activeInstances : '—'}</td>}
                  <td data-label="Rule">
                    {g.activeRule ? (
                      <>
                        {g.activeRule.isWarmup ? 'warming up for ' : 'in force: '}
                        {g.activeRule.name}
                      </>
                    ) : (
                      <span class="sc-muted">none now</span>
                    )}
                  </td>
                  <td data-label="Schedule">
                    {g.problem ? 'file unusable' : g.enabled ? 'on' : 'off'}
                    <small class="sc-muted">
                      {' '}
                      {g.ruleCount} rule{g.ruleCount === 1 ? '' : 's'}, {g.timezone}
                    </small>
                  </td>
                  <td data-label="Prediction">{g.predictionEnabled ? 'on' : 'off'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Each group's players against its capacity and its instances against its maximum (GET
 * /api/status), with the groups in maintenance marked. A table on a wide screen, one card per
 * group below 640 px. The bars are ARIA meters, so their figures are read out too.
 */
import { capacityText, PROXY_SOFTWARE, type GroupTotals, type Maintenance } from './model';

/** A bar of `value` against `max`: players turn amber then red as a group fills; instances stay one colour (a group at its maximum is not a fault). */
function Bar({ label, value, max, load }: { label: string; value: number; max: number; load: boolean }) {
  const share = max > 0 ? Math.min(1, value / max) : 0;
  const level = !load ? 'count' : share >= 0.9 ? 'full' : share >= 0.7 ? 'high' : 'ok';
  return (
    <div class={`nw-bar nw-bar-${level}`} role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={Math.max(max, value, 1)} aria-valuenow={value} aria-valuetext={`${value} of ${max}`}>
      <span style={{ width: `${Math.round(share * 100)}%` }} />
    </div>
  );
}

export function GroupCapacity({ groups, maintenance }: { groups: readonly GroupTotals[]; maintenance: Maintenance | undefined }) {
  const totals = groups.filter((g) => !PROXY_SOFTWARE.has(g.software)).reduce((sum, g) => ({ players: sum.players + g.players, capacity: sum.capacity + g.maxPlayers }), { players: 0, capacity: 0 });
  return (
    <>
      <p class="nw-muted" data-testid="capacity-total">
        Backends: {capacityText(totals.players, totals.capacity)}
      </p>
      <table class="nw-groups">
        <thead>
          <tr>
            <th scope="col">Group</th>
            <th scope="col">Players</th>
            <th scope="col">Instances</th>
            <th scope="col">Software</th>
          </tr>
        </thead>
        <tbody>
          {groups.length === 0 && (
            <tr>
              <td colSpan={4} class="nw-muted">
                No groups yet.
              </td>
            </tr>
          )}
          {groups.map((g) => {
            const inMaintenance = maintenance?.global.enabled === true || maintenance?.groups[g.name]?.enabled === true;
            return (
              <tr key={g.name} data-group={g.name}>
                <th scope="row">
                  {g.name}
                  {PROXY_SOFTWARE.has(g.software) && <span class="nw-tag">proxy</span>}
                  {inMaintenance && <span class="nw-tag nw-tag-warn">maintenance</span>}
                  {g.quarantined && <span class="nw-tag nw-tag-bad">quarantined</span>}
                </th>
                <td data-label="Players">
                  <div class="nw-gauge">
                    <Bar label={`${g.name} players`} value={g.players} max={g.maxPlayers} load />
                    <span class="nw-gauge-text" data-testid="group-players">
                      {g.players} / {g.maxPlayers}
                    </span>
                  </div>
                </td>
                <td data-label="Instances">
                  <div class="nw-gauge">
                    <Bar label={`${g.name} instances`} value={g.instances} max={g.maxInstances} load={false} />
                    <span class="nw-gauge-text" data-testid="group-instances">
                      {g.instances} / {g.maxInstances}
                    </span>
                  </div>
                </td>
                <td data-label="Software">
                  {g.software} {g.version}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

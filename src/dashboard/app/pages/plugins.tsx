import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { Installed } from './plugins/installed';
import { platformOf, templateOf } from './plugins/requests';
import { PluginSearch } from './plugins/search';
import { LoadFailure } from './settings/outcome';
import { GROUPS_KEY, listGroups } from './settings/requests';
import './settings/shared.css';
import './plugins/plugins.css';

/**
 * The Plugins page: pick a group; see the plugins its template holds (and remove one); search
 * Modrinth and Hangar for its platform and version, and install a hit with its dependencies.
 */
export function Plugins() {
  const groups = useQuery({ queryKey: GROUPS_KEY, queryFn: listGroups });
  const [chosen, setChosen] = useState<string | null>(null);
  const list = groups.data?.groups ?? [];
  // The first group that takes plugins, unless the operator picked one.
  const group = list.find((g) => g.name === chosen) ?? list.find((g) => platformOf(g.software) !== null) ?? list[0];
  const platform = group ? platformOf(group.software) : null;
  return (
    <div class="op-page">
      <h1>Plugins</h1>
      {groups.isPending && <p>Loading…</p>}
      {groups.isError && <LoadFailure error={groups.error} />}
      {groups.data && list.length === 0 && <p class="op-muted">No group yet: plugins are installed into a group's template. Create a group first.</p>}
      {group && (
        <>
          <section class="op-card pl-group" aria-label="Choose a group">
            <div class="op-field">
              <label for="pl-group">Group</label>
              <select id="pl-group" value={group.name} onChange={(e) => setChosen((e.target as HTMLSelectElement).value)}>
                {list.map((g) => (
                  <option key={g.name} value={g.name}>
                    {g.name} ({g.software} {g.version})
                  </option>
                ))}
              </select>
            </div>
            {platform === null && <p class="op-muted">{group.software} takes mods, not plugins: pick a platform below to install anyway.</p>}
          </section>
          <Installed key={`i-${group.name}`} group={group.name} template={templateOf(group)} />
          <PluginSearch key={`s-${group.name}`} group={group.name} template={templateOf(group)} defaultPlatform={platform ?? 'paper'} defaultVersion={group.version} />
        </>
      )}
    </div>
  );
}

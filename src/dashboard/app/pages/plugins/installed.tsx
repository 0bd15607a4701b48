/** The plugins in a group's template (what its next instances start with); each can be removed. */
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { LoadFailure, OutcomeLine, useAction } from '../settings/outcome';
import { installedKey, installedPlugins, removePlugin } from './requests';

const size = (bytes: number) => (bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`);

export function Installed({ group, template }: { group: string; template: string }) {
  const queries = useQueryClient();
  const list = useQuery({ queryKey: installedKey(template), queryFn: () => installedPlugins(template) });
  const action = useAction();
  return (
    <section class="op-card" aria-labelledby="pl-installed">
      <h2 id="pl-installed">Installed in {group}</h2>
      <p class="op-muted">
        The <code>plugins/</code> folder of template <code>{template}</code>: every new instance of {group} starts with these; running ones keep theirs until restarted.
      </p>
      {list.isPending && <p>Loading…</p>}
      {list.isError && <LoadFailure error={list.error} />}
      {list.data && list.data.length === 0 && <p class="op-muted">No plugin yet.</p>}
      {list.data && list.data.length > 0 && (
        <ul class="pl-installed" aria-label={`Plugins of ${group}`}>
          {list.data.map((f) => (
            <li key={f.name}>
              <span>
                <strong>{f.name}</strong>
                <small>
                  {size(f.size)}, {new Date(f.lastModified).toLocaleString()}
                </small>
              </span>
              <button
                type="button"
                class="op-secondary op-danger-text"
                aria-label={`Remove ${f.name}`}
                disabled={action.busy}
                onClick={() =>
                  void action.run(async () => {
                    await removePlugin(template, f.name);
                    await queries.invalidateQueries({ queryKey: installedKey(template) });
                    return `${f.name} removed from ${group}`;
                  })
                }
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <OutcomeLine outcome={action.outcome} />
    </section>
  );
}

/**
 * Search Modrinth and Hangar for the group's platform and Minecraft version, and install a hit
 * (with its required dependencies) into the group. A repository that could not be asked is
 * named beside the other's results, so an empty list never passes for "no such plugin".
 */
import { useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { OutcomeLine, refusalText, useAction } from '../settings/outcome';
import { installedKey, installPlugin, PLATFORMS, searchPlugins, type PluginHit, type SearchResult } from './requests';

const count = (n: number) => (n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1000 ? `${(n / 1000).toFixed(1)}K` : String(n));

export function PluginSearch({ group, template, defaultPlatform, defaultVersion }: { group: string; template: string; defaultPlatform: string; defaultVersion: string }) {
  const queries = useQueryClient();
  const [q, setQ] = useState('');
  const [platform, setPlatform] = useState(defaultPlatform);
  const [mcVersion, setMcVersion] = useState(defaultVersion);
  const [result, setResult] = useState<SearchResult | null>(null);
  const [searching, setSearching] = useState(false);
  const [searchError, setSearchError] = useState<string | null>(null);
  const install = useAction();

  const search = async (event: Event) => {
    event.preventDefault();
    setSearching(true);
    setSearchError(null);
    try {
      setResult(await searchPlugins(q.trim(), platform, mcVersion.trim()));
    } catch (error) {
      setResult(null);
      setSearchError(refusalText(error));
    } finally {
      setSearching(false);
    }
  };
  const add = (hit: PluginHit) =>
    void install.run(async () => {
      const answer = await installPlugin(hit, group, platform, mcVersion.trim());
      await queries.invalidateQueries({ queryKey: installedKey(template) });
      return answer.message;
    });

  return (
    <section class="op-card" aria-labelledby="pl-search">
      <h2 id="pl-search">Find a plugin</h2>
      <form class="pl-search" aria-label="Plugin search" onSubmit={search}>
        <div class="op-field pl-q">
          <label for="pl-q">Search words</label>
          <input id="pl-q" maxLength={100} placeholder="empty lists popular plugins" value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </div>
        <div class="op-field">
          <label for="pl-platform">Platform</label>
          <select id="pl-platform" value={platform} onChange={(e) => setPlatform((e.target as HTMLSelectElement).value)}>
            {PLATFORMS.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <div class="op-field">
          <label for="pl-version">Minecraft version</label>
          <input id="pl-version" maxLength={64} value={mcVersion} onInput={(e) => setMcVersion((e.target as HTMLInputElement).value)} />
        </div>
        <button type="submit" disabled={searching}>
          {searching ? 'Searching…' : 'Search'}
        </button>
      </form>
      {searchError && (
        <p role="alert" class="op-error">
          {searchError}
        </p>
      )}
      {result?.unavailable.map((u) => (
        <p key={u.source} role="status" class="op-muted">
          {u.source} could not be searched: {u.message}
        </p>
      ))}
      <OutcomeLine outcome={install.outcome} />
      {result && result.results.length === 0 && <p class="op-muted">No plugin found for {platform}{mcVersion ? ` on ${mcVersion}` : ''}.</p>}
      {result && result.results.length > 0 && (
        <ul class="pl-results" aria-label="Search results">
          {result.results.map((hit) => (
            <li key={`${hit.source}:${hit.projectId}`} class="pl-hit">
              <div>
                <strong>{hit.name}</strong> <span class="op-muted">by {hit.author}</span>
                <span class="op-pill">{hit.source}</span>
                <span class="op-muted"> · {count(hit.downloads)} downloads</span>
              </div>
              {hit.description && <p class="op-muted">{hit.description}</p>}
              <div>
                <button type="button" disabled={install.busy} aria-label={`Install ${hit.name} from ${hit.source} into ${group}`} onClick={() => add(hit)}>
                  Install into {group}
                </button>
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

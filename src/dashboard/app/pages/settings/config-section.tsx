/**
 * The configuration: the three keys PATCH /api/config changes live (network name, console
 * colours, console event log), then every other svc.toml section read-only (those need an edit
 * of the file and a restart); secrets appear only as whether they are set.
 */
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { FieldsForm, type FieldSpec } from './fields-form';
import { LoadFailure } from './outcome';
import { CONFIG_KEY, getConfig, patchConfig, type ConfigView } from './requests';

const LIVE_FIELDS: FieldSpec[] = [
  { key: 'networkName', label: 'Network name', kind: 'text', required: true, maxLength: 64, hint: "The Overview's heading; 1 to 64 characters." },
  { key: 'consoleColored', label: 'Coloured console output', kind: 'bool' },
  { key: 'consoleLogEvents', label: 'Log every event in the console', kind: 'bool' },
];

export function ConfigSection() {
  const queries = useQueryClient();
  const config = useQuery({ queryKey: CONFIG_KEY, queryFn: getConfig });
  const save = async (changed: Record<string, unknown>) => {
    const answer = await patchConfig(changed);
    queries.setQueryData(CONFIG_KEY, answer.config);
    // The Overview's heading is the network name.
    void queries.invalidateQueries({ queryKey: ['status'] });
    return `Saved: ${answer.message}.`;
  };
  return (
    <section class="op-card" aria-labelledby="st-config">
      <h2 id="st-config">Configuration</h2>
      {config.isPending && <p>Loading…</p>}
      {config.isError && <LoadFailure error={config.error} />}
      {config.data && (
        <>
          <p class="op-muted">These change at once; svc.toml is rewritten keeping its comments.</p>
          <FieldsForm title="Live settings" fields={LIVE_FIELDS} values={config.data as unknown as Record<string, unknown>} save={save} />
          <ReadOnly config={config.data} />
        </>
      )}
    </section>
  );
}

/** One value as text: secrets' has_* flags as set / not set, lists comma-separated, objects as JSON. */
function shown(key: string, value: unknown): string {
  if (key.startsWith('has_')) return value ? 'set' : 'not set';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (value === '' || value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map((v) => (typeof v === 'object' ? JSON.stringify(v) : String(v))).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function ReadOnly({ config }: { config: ConfigView }) {
  const sections = Object.entries(config.sections).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div class="st-readonly">
      <h3>Everything else in svc.toml</h3>
      <p class="op-muted">
        Read only: edit <code>{config.configFile}</code> and restart the controller to change these. {config.hasToken ? 'An API token is configured' : 'No API token is configured (one was generated at start)'}; JWTs are{' '}
        {config.jwtEnabled ? 'enabled' : 'disabled'}.
      </p>
      <div class="st-sections">
        {sections.map(([name, values]) => (
          <details key={name} class="st-config-section">
            <summary>[{name}]</summary>
            <dl>
              {Object.entries(values).map(([key, value]) => (
                <div key={key}>
                  <dt>{key.startsWith('has_') ? `${key.slice(4)} (secret)` : key}</dt>
                  <dd>{shown(key, value)}</dd>
                </div>
              ))}
            </dl>
          </details>
        ))}
      </div>
    </div>
  );
}

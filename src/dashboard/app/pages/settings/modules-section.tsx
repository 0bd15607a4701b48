/**
 * The controller's modules (GET /api/modules): each one's name, id, version, description and
 * where it stands: active, installed and waiting for a restart, uninstalled but still running
 * until one, failed at start (with why), or available. Read only: installing is the API's
 * (POST /api/modules/install/{id}). MODULE_* events read the list again.
 */
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { useLiveRefresh } from '../../live-refresh';
import { LoadFailure } from './outcome';

export interface ModuleInfo {
  id: string;
  name: string;
  version: string;
  description: string;
  status: 'active' | 'available' | 'failed';
  /** Why its start failed this run, or null. */
  error: string | null;
  loaded: boolean;
  /** Its module file is present: it loads on the next start. */
  installed: boolean;
  /** Installed or uninstalled since this start. */
  restartRequired: boolean;
}

export const MODULES_KEY = ['modules'] as const;
const getModules = () => api<{ modules: ModuleInfo[] }>('/api/modules');

/** The module's state as a short pill and a sentence. */
export function moduleState(m: ModuleInfo): { pill: string; tone: 'good' | 'on' | 'bad' | 'plain'; words: string } {
  if (m.status === 'failed') {
    const why = m.error ? `: ${m.error.replace(/\.$/, '')}` : '';
    return { pill: 'failed', tone: 'bad', words: `Installed, but it failed to start this run${why}. A restart of the controller tries again (restart required).` };
  }
  if (m.status === 'active') {
    if (!m.installed) return { pill: 'active', tone: 'on', words: 'Uninstalled: it keeps running until the controller restarts (restart required).' };
    return { pill: 'active', tone: 'good', words: 'Installed and running.' };
  }
  if (m.installed) return { pill: 'installed', tone: 'on', words: 'Installed: it loads when the controller restarts (restart required).' };
  return { pill: 'available', tone: 'plain', words: 'Available in this build, not installed.' };
}

const TONE_CLASS = { good: 'op-pill op-pill-good', on: 'op-pill op-pill-on', bad: 'op-pill st-pill-bad', plain: 'op-pill' } as const;

export function ModulesSection() {
  const modules = useQuery({ queryKey: MODULES_KEY, queryFn: getModules });
  useLiveRefresh([MODULES_KEY], (type) => type.startsWith('MODULE_'));
  return (
    <section class="op-card" aria-labelledby="st-modules">
      <h2 id="st-modules">Modules</h2>
      {modules.isPending && <p>Loading…</p>}
      {modules.isError && <LoadFailure error={modules.error} />}
      {modules.data && modules.data.modules.length === 0 && <p class="op-muted">This build has no modules.</p>}
      {modules.data && modules.data.modules.length > 0 && (
        <>
          <p class="op-muted">Modules of this build. Installing or uninstalling one takes effect when the controller restarts.</p>
          <ul class="st-modules" aria-label="Modules">
            {modules.data.modules.map((m) => {
              const state = moduleState(m);
              return (
                <li key={m.id} class="st-module" aria-labelledby={`st-module-${m.id}`}>
                  <div class="st-module-head">
                    <strong id={`st-module-${m.id}`}>{m.name}</strong>
                    <span class="op-muted">
                      <code>{m.id}</code> · v{m.version}
                    </span>
                    <span class={TONE_CLASS[state.tone]}>{state.pill}</span>
                  </div>
                  {m.description && <p>{m.description}</p>}
                  <p class={m.status === 'failed' ? 'op-error' : 'op-muted'}>{state.words}</p>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}

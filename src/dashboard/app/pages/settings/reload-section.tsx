/**
 * Reload configuration (POST /api/reload): every group file and svc.toml read again. The report
 * says how many groups were loaded, each part's fate (applied now, when the next service is
 * prepared, or only after a restart) and any warnings; a refusal in the API's words. Everything
 * on the page is read again after it, since any of it may have changed on disk.
 */
import { useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { api } from '../../api';
import { refusalText } from './outcome';

interface ReloadSection {
  name: string;
  scope: 'LIVE' | 'NEXT_SERVICE_PREPARE' | 'REQUIRES_RESTART';
  applied: boolean;
  description: string;
}
export interface ReloadReport {
  success: boolean;
  groupsLoaded: number;
  message: string;
  sections: ReloadSection[];
  requiresRestartIfChanged: string[];
  warnings: string[];
}

const reload = () => api<ReloadReport>('/api/reload', { method: 'POST' });

const SCOPE_WORDS: Record<ReloadSection['scope'], string> = {
  LIVE: 'applies now',
  NEXT_SERVICE_PREPARE: 'applies when the next service is prepared',
  REQUIRES_RESTART: 'needs a restart of the controller',
};

export function ReloadSection() {
  const queries = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<ReloadReport | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const run = async () => {
    setBusy(true);
    setReport(null);
    setFailure(null);
    try {
      setReport(await reload());
      void queries.invalidateQueries();
    } catch (error) {
      setFailure(refusalText(error));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="op-card" aria-labelledby="st-reload">
      <h2 id="st-reload">Reload configuration</h2>
      <p class="op-muted">Reads every group file, svc.toml, the maintenance and proxy files again. Groups and the live keys apply at once; other svc.toml changes need a restart.</p>
      <div class="op-actions">
        <button type="button" disabled={busy} onClick={() => void run()}>
          {busy ? 'Reloading…' : 'Reload configuration'}
        </button>
      </div>
      {failure && (
        <p role="alert" class="op-error">
          {failure}
        </p>
      )}
      {report && <Report report={report} />}
    </section>
  );
}

function Report({ report }: { report: ReloadReport }) {
  const capital = report.message.charAt(0).toUpperCase() + report.message.slice(1);
  return (
    <div role="status" class="st-reload-report">
      <p class={report.success ? 'op-ok' : 'op-error'}>
        {capital}. Groups loaded: {report.groupsLoaded}.
      </p>
      <ul class="st-reload-sections" aria-label="What the reload did">
        {report.sections.map((s) => (
          <li key={s.name}>
            <code>{s.name}</code> <span class="op-muted">({SCOPE_WORDS[s.scope] ?? s.scope}{s.applied ? '' : ', not applied'})</span>: {s.description}
          </li>
        ))}
      </ul>
      {report.warnings.length > 0 && (
        <>
          <p class="op-error">Warnings:</p>
          <ul class="st-reload-warnings" aria-label="Reload warnings">
            {report.warnings.map((w, i) => (
              <li key={i}>{w}</li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

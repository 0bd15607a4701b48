/**
 * The backup module's page (/backups; backups.tsx loads it when first shown): back up now, the
 * runs newest first with their progress as the module's events arrive (BACKUP_STARTED, then
 * _COMPLETED or _FAILED), verify, restore with a dry run first, download, delete; the schedules
 * with their last and next run; the targets, retention (and prune) and archiving settings,
 * edited through PUT /api/backups/config.
 *
 * The page needs svc.dashboard.backups.view; every change needs svc.dashboard.backups.manage,
 * reading a config or database archive too, and the archive folder and the login key are the
 * operator's alone. The API enforces them all; a session is told here beforehand what it lacks,
 * and a refusal is said in words. A session without the events socket (svc.dashboard.overview)
 * reads again on a timer.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { useLiveRefresh } from '../../live-refresh';
import { loadStylesheet } from '../../stylesheet';
import backupsCss from './backups.css' with { type: 'file' };
import { useAccess, type Access } from './access';
import { Activity } from './activity';
import { ArchivingSection } from './archiving';
import { useNow } from './clock';
import { BACKUP_EVENTS, BASE, KEYS, NODE, type BackupConfig, type BackupList, type Status } from './model';
import { refusalText } from './outcome';
import { RetentionSection } from './retention';
import { RunsSection } from './runs';
import { SchedulesSection } from './schedules';
import { TargetsSection } from './targets';
import { TriggerForm } from './trigger';

/** Resolves when the page's styles are in (the lazy loader shows the page only then). */
export const ready = loadStylesheet(backupsCss as string);

const RECENT = 200;

/** What the module's events change: the records, the running count, the schedules' last runs (the configuration they do not touch). */
const LIVE_KEYS = [KEYS.list, KEYS.recent, KEYS.status, KEYS.schedules];

/** Reads the records and the status again on the module's events (and on each reconnect). */
function LiveUpdates() {
  useLiveRefresh(LIVE_KEYS, (type) => BACKUP_EVENTS.has(type), 100);
  return null;
}

function Summary({ status }: { status: Status | undefined }) {
  if (!status) return null;
  return (
    <p class="bk-summary" aria-live="polite">
      <span class={status.activeJobs > 0 ? 'bk-running-now' : undefined}>
        {status.activeJobs === 0 ? 'No backup running now' : `${status.activeJobs} ${status.activeJobs === 1 ? 'backup' : 'backups'} running now`}
      </span>
      <span class="bk-muted">
        {' '}
        · archives go to <code>{status.localDestination}</code>
      </span>
    </p>
  );
}

function Sections({ access }: { access: Access }) {
  const [newest, setNewest] = useState(0);
  const now = useNow(30_000);
  const poll = access.live ? false : 15_000;
  const config = useQuery({ queryKey: KEYS.config, queryFn: () => api<BackupConfig>(`${BASE}/config`), refetchInterval: poll });
  const status = useQuery({
    queryKey: KEYS.status,
    queryFn: () => api<Status>(`${BASE}/status`),
    refetchInterval: access.live ? false : (query) => ((query.state.data?.activeJobs ?? 0) > 0 ? 2_000 : 15_000),
  });
  const recent = useQuery({ queryKey: KEYS.recent, queryFn: () => api<BackupList>(`${BASE}?limit=${RECENT}`), refetchInterval: poll });
  const services = useQuery({
    queryKey: [...KEYS.all, 'services'],
    queryFn: () => api<{ services: { name: string; state: string }[] }>('/api/services'),
    enabled: access.services,
    staleTime: 5_000,
  });
  const names = [
    ...new Set([
      ...(services.data?.services.map((s) => s.name) ?? []),
      ...(recent.data?.backups.filter((b) => b.targetType === 'SERVICE' || b.targetType === 'DEDICATED').map((b) => b.targetName) ?? []),
    ]),
  ].sort((a, b) => a.localeCompare(b));

  return (
    <>
      {access.live && <LiveUpdates />}
      <Summary status={status.data} />
      {!access.manage && (
        <p class="bk-note" role="note">
          This account holds {NODE.view} but not {NODE.manage}: you can look at everything here, and the controller refuses every change.
        </p>
      )}
      {config.isError && (
        <p role="alert" class="bk-error">
          {refusalText(config.error, 'The backup configuration could not be read')}
        </p>
      )}
      <div class="bk-top">
        <TriggerForm access={access} config={config.data} names={names} onStarted={() => setNewest((n) => n + 1)} />
        <Activity live={access.live} />
      </div>
      <RunsSection access={access} names={[...names, 'all']} showNewest={newest} />
      <SchedulesSection config={config.data} access={access} now={now} />
      {config.data && (
        <>
          <TargetsSection config={config.data} access={access} recent={recent.data?.backups} recentTotal={recent.data?.total ?? 0} now={now} />
          <RetentionSection config={config.data} access={access} />
          <ArchivingSection config={config.data} access={access} destination={status.data?.localDestination} />
        </>
      )}
    </>
  );
}

export function Page() {
  const access = useAccess();
  return (
    <section class="bk-page">
      <h1>Backups</h1>
      <nav class="bk-jump" aria-label="On this page">
        <a href="#bk-trigger-title">Back up now</a>
        <a href="#bk-runs-title">Runs</a>
        <a href="#bk-schedules-title">Schedules</a>
        <a href="#bk-targets-title">Targets</a>
        <a href="#bk-retention-title">Retention</a>
        <a href="#bk-archiving-title">Archiving</a>
      </nav>
      {access === undefined ? <p class="bk-muted">Loading…</p> : <Sections access={access} />}
    </section>
  );
}

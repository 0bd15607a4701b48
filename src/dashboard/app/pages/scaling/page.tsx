/**
 * The smart scaling module's page (/scaling; scaling.tsx loads it when first shown): each
 * DYNAMIC and LOBBY group's bounds now (the minimum the engine works with and what raised it),
 * and for the group chosen its timetable on a week grid with the form that changes a rule, the
 * warm-up and prediction settings, its players actual against predicted in one chart, and the
 * decisions log. Kept current by the events that move these figures (SMART_SCHEDULE,
 * SMART_SCHEDULE_SAVED, SMART_WARMUP, SMART_PREDICTION, SCALE_UP, SCALE_DOWN, services and groups
 * changing) instead of polling; the status alone is also read every 30 s, since a rule opening
 * or closing with the clock is announced by no event when it starts nothing.
 *
 * The page needs svc.dashboard.scaling.view; a change of a schedule (saved through PUT
 * /api/scaling/schedules/{group}, in force at once) needs svc.dashboard.scaling.manage. The API
 * enforces them; a session is told beforehand which it lacks, and a refusal is said in words.
 */
import { useEffect, useState } from 'preact/hooks';
import { useIsFetching, useQuery, useQueryClient } from '@tanstack/preact-query';
import { useLocation, useSearch } from 'wouter-preact';
import { useLiveRefresh } from '../../live-refresh';
import { loadStylesheet } from '../../stylesheet';
import scalingCss from './scaling.css' with { type: 'file' };
import { PlayersChart } from './chart';
import { DecisionsLog } from './decisions';
import { GroupsNow } from './groups-now';
import { useMay, type May } from './may';
import { DECISIONS_KEY, getGroups, getSchedule, getStatus, GROUPS_KEY, NODE, scheduleKey, SCHEDULES_KEY, STATUS_KEY, type Schedule } from './model';
import { ScheduleSettings } from './settings';
import { Timetable } from './timetable';
import { refusalText, withStop } from './words';

/** Resolves when the page's styles are in (the lazy loader shows the page only then). */
export const ready = loadStylesheet(scalingCss as string);

const STATUS_REFRESH_MS = 30_000;
const MOVES_BOUNDS = /^(SMART_(SCHEDULE|SCHEDULE_SAVED|WARMUP|PREDICTION)|SCALE_(UP|DOWN)|SERVICE_(READY|STOPPED|CRASHED|STARTING)|GROUP_(CREATED|UPDATED|DELETED)|CONFIG_RELOADED)$/;
const MOVES_SCHEDULES = /^(SMART_(SCHEDULE|SCHEDULE_SAVED|WARMUP|PREDICTION)|GROUP_(CREATED|UPDATED|DELETED)|CONFIG_RELOADED)$/;

function useNow(everyMs: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** The live part: mounted only for a sign-in that may hear the event stream. */
function LiveRefresh({ groups }: { groups: boolean }) {
  useLiveRefresh(groups ? [STATUS_KEY, DECISIONS_KEY, GROUPS_KEY] : [STATUS_KEY, DECISIONS_KEY], (type) => MOVES_BOUNDS.test(type), 200);
  useLiveRefresh([SCHEDULES_KEY], (type) => MOVES_SCHEDULES.test(type), 200);
  return null;
}

export function Page() {
  const may = useMay();
  if (!may) return <p class="sc-muted">Loading…</p>;
  return <ScalingPage may={may} />;
}

function ScalingPage({ may }: { may: May }) {
  const queries = useQueryClient();
  const fetching = useIsFetching({ queryKey: ['scaling'] }) > 0;
  const live = may(NODE.events);
  const mayGroups = may(NODE.groups);
  const now = useNow(30_000);
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: getStatus, refetchInterval: STATUS_REFRESH_MS });
  const facts = useQuery({ queryKey: GROUPS_KEY, queryFn: getGroups, enabled: mayGroups, refetchInterval: live ? false : STATUS_REFRESH_MS });

  const [, navigate] = useLocation();
  const asked = new URLSearchParams(useSearch()).get('group') ?? '';
  const groups = status.data?.groups ?? [];
  const names = groups.map((g) => g.group);
  const selected = names.find((n) => n.toLowerCase() === asked.toLowerCase()) ?? groups.find((g) => g.problem === null)?.group ?? names[0] ?? '';
  const chosen = groups.find((g) => g.group === selected);
  const usable = chosen !== undefined && chosen.problem === null;
  const choose = (group: string) => navigate(`/scaling?group=${encodeURIComponent(group)}`, { replace: true });
  // A group whose file cannot be used has no schedule to read (the API answers 404 with the reason the status already gives).
  const schedule = useQuery<Schedule>({ queryKey: scheduleKey(selected), queryFn: () => getSchedule(selected), enabled: usable });

  return (
    <section class="sc-page">
      <div class="sc-head">
        <h1>Scaling</h1>
        <button type="button" class="sc-secondary" disabled={fetching} onClick={() => void queries.invalidateQueries({ queryKey: ['scaling'] })}>
          {fetching ? 'Reading…' : 'Read again'}
        </button>
      </div>
      <nav class="sc-jump" aria-label="On this page">
        <a href="#sc-now-title">Groups now</a>
        <a href="#sc-timetable-title">Timetable</a>
        <a href="#sc-warmup-title">Warm-up and prediction</a>
        <a href="#sc-chart-title">Players</a>
        <a href="#sc-decisions-title">Decisions</a>
      </nav>
      {live ? <LiveRefresh groups={mayGroups} /> : <p class="sc-muted">Not kept current by events: the live event stream needs the permission {NODE.events}. The figures are read again every 30 s, or with Read again.</p>}
      <GroupsNow status={status} facts={facts.data?.groups} selected={selected} onSelect={choose} />
      {names.length > 0 && (
        <div class="sc-chooser">
          <label for="sc-group">Group</label>
          <select id="sc-group" value={selected} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
          <span class="sc-muted">Its timetable, warm-up and players below.</span>
        </div>
      )}
      {chosen && !usable && (
        <section class="sc-card" aria-labelledby="sc-timetable-title">
          <h2 id="sc-timetable-title">Timetable of {selected}</h2>
          <p role="alert" class="sc-error">
            Smart scaling is off for {selected}: {withStop(chosen.problem ?? '')} Fix the file on the controller, then run “scaling reload” in its console.
          </p>
        </section>
      )}
      {usable && (
        <>
          <Timetable group={selected} schedule={schedule} status={chosen} may={may} now={now} />
          <section class="sc-card" aria-labelledby="sc-warmup-title">
            <h2 id="sc-warmup-title">Warm-up and prediction of {selected}</h2>
            <p class="sc-muted">Warm-up starts what a rule needs before it opens; the prediction raises the minimum ahead of busy hours from the group’s own history. Either only ever raises the minimum the autoscaler keeps, never past the group’s maximum.</p>
            {schedule.isError && (
              <p role="alert" class="sc-error">
                {refusalText(schedule.error, 'The settings could not be read')}
              </p>
            )}
            {schedule.data && <ScheduleSettings schedule={schedule.data} may={may} />}
          </section>
        </>
      )}
      {chosen && <PlayersChart group={selected} predictable={usable} timezone={chosen.timezone} />}
      <DecisionsLog groups={names} selected={selected} poll={!live} />
    </section>
  );
}

/**
 * The controller and the machine it runs on, from GET /api/controller/info: its version, start
 * and uptime, its own memory, the services' memory against [controller] max_memory, the
 * machine (CPU, loads, memory) and the runtime; a banner when a newer release was announced.
 * Memory and CPU move all the time and have no event, so it is read again every 15 s; and at
 * once when the page's status (read every 5 s) shows services started or stopped, which moves
 * the running services and the services' memory.
 *
 * Not by the live events: a socket on the Overview, the page every session lands on, would
 * fetch a new socket ticket after a session is revoked and be refused (401) before the status
 * poll signs the page out; the status already carries what the events would tell here.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { LoadFailure } from '../settings/outcome';
import { getInfo, INFO_KEY, megabytes, percent, uptime, type ControllerInfo } from './requests';

const REFRESH_MS = 15_000;

/** `services`: a value that changes when services start or stop (the status' counts); the card is read again then. */
export function SystemCard({ services }: { services: string }) {
  const queries = useQueryClient();
  const info = useQuery({ queryKey: INFO_KEY, queryFn: getInfo, refetchInterval: REFRESH_MS });
  const seen = useRef(services);
  useEffect(() => {
    if (seen.current === services) return;
    seen.current = services;
    void queries.invalidateQueries({ queryKey: INFO_KEY });
  }, [services]);
  return (
    <section class="op-card ov-system" aria-labelledby="ov-system">
      <h2 id="ov-system">Controller and machine</h2>
      {info.isPending && <p>Loading…</p>}
      {info.isError && <LoadFailure error={info.error} />}
      {info.data && <Figures info={info.data} />}
    </section>
  );
}

/** One figure: its name and its value (a dt/dd pair, so a reader hears which is which). */
function Fact({ name, children, wide }: { name: string; children: ComponentChildren; wide?: boolean }) {
  return (
    <div class={wide ? 'ov-fact ov-wide' : 'ov-fact'}>
      <dt>{name}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** A share as a bar: a meter (its accessible name says of what) with the figures in words beside it. */
function Bar({ label, value, max }: { label: string; value: number; max: number }) {
  const top = Math.max(max, 1);
  return <meter class="ov-meter" min={0} max={top} value={Math.min(value, top)} low={top * 0.7} high={top * 0.9} optimum={0} aria-label={label} />;
}

function share(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)} %` : '—';
}

function Figures({ info }: { info: ControllerInfo }) {
  const s = info.system;
  const started = new Date(info.startedAt);
  return (
    <>
      {info.updateAvailable && <UpdateBanner info={info} />}
      <div class="ov-groups">
        <div class="ov-group">
          <h3>Controller</h3>
          <dl class="ov-facts">
            <Fact name="Version">{info.version}</Fact>
            <Fact name="Started">
              <time dateTime={info.startedAt}>{started.toLocaleString()}</time>
            </Fact>
            <Fact name="Uptime">{uptime(info.uptimeSeconds)}</Fact>
            <Fact name="Running services">{info.runningServices}</Fact>
            <Fact name="Memory in use">{megabytes(info.runtimeMemoryUsedMb)}</Fact>
            <Fact name="JavaScript heap">{megabytes(info.jvmMemoryAllocatedMb)}</Fact>
            <Fact name="May grow to" wide>
              {megabytes(info.jvmMemoryMaxMb)} <span class="op-muted">(its memory limit, else the machine's memory)</span>
            </Fact>
            <Fact name="Runtime" wide>
              {info.system.runtimeVersion} <span class="op-muted">({info.system.runtimeVendor})</span>
            </Fact>
          </dl>
        </div>
        <div class="ov-group">
          <h3>Services memory on this machine</h3>
          <Bar label="Services memory allocated of the maximum" value={info.servicesAllocatedMemoryMb} max={info.servicesMaxMemoryMb} />
          <dl class="ov-facts">
            <Fact name="Allocated">
              {megabytes(info.servicesAllocatedMemoryMb)} <span class="op-muted">({share(info.servicesAllocatedMemoryMb, info.servicesMaxMemoryMb)})</span>
            </Fact>
            <Fact name="Maximum">{megabytes(info.servicesMaxMemoryMb)}</Fact>
            <Fact name="In use">{megabytes(info.servicesUsedMemoryMb)}</Fact>
          </dl>
          <p class="op-muted">Allocated is what the services are budgeted (heap and overhead, warm pool included), checked against the maximum ([controller] max_memory); in use is their resident memory.</p>
        </div>
        <div class="ov-group ov-machine">
          <h3>Machine</h3>
          <dl class="ov-facts">
            <Fact name="Hostname">{s.hostname}</Fact>
            <Fact name="Operating system">
              {s.osName} {s.osVersion}
            </Fact>
            <Fact name="Architecture">{s.osArch}</Fact>
            <Fact name="Processors">{s.availableProcessors}</Fact>
            <Fact name="CPU" wide>
              {s.cpuModel}
            </Fact>
            <Fact name="System CPU load">{percent(s.systemCpuLoad)}</Fact>
            <Fact name="Controller CPU load">{percent(s.processCpuLoad)}</Fact>
            <Fact name="System memory" wide>
              {megabytes(s.systemMemoryUsedMb)} of {megabytes(s.systemMemoryTotalMb)} <span class="op-muted">({share(s.systemMemoryUsedMb, s.systemMemoryTotalMb)})</span>
              <Bar label="System memory in use" value={s.systemMemoryUsedMb} max={s.systemMemoryTotalMb} />
            </Fact>
          </dl>
        </div>
      </div>
    </>
  );
}

const UPDATE_WORD: Record<string, string> = { MAJOR: 'a major release', MINOR: 'a minor release', PATCH: 'a patch release' };

/** Only a web address becomes a link (the controller checks it too). */
function webUrl(value: string | null): string | null {
  if (!value) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function UpdateBanner({ info }: { info: ControllerInfo }) {
  const kind = info.updateType ? UPDATE_WORD[info.updateType] : undefined;
  const release = webUrl(info.releaseUrl);
  return (
    <div class="ov-update" role="region" aria-label="Update available">
      <p>
        <strong>svc {info.latestVersion ?? 'a newer version'} is available</strong>
        {kind && <> ({kind})</>}; this controller runs {info.version}. <span class="op-muted">Apply it with <code>svc update</code>.</span>
      </p>
      {release && (
        <a href={release} target="_blank" rel="noopener noreferrer">
          Release notes of {info.latestVersion}
        </a>
      )}
    </div>
  );
}

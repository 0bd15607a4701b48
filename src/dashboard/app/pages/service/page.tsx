/**
 * A service's own page (/services/:name): its record, its console, memory and players over the
 * last hour, its timeline and its logs. Kept current by the live events about it (live.ts), and
 * the record every 10 s besides (memory moves without an event). A service that is not in the
 * registry (stopped, or never there) says so; its page comes back to life when it starts again.
 * Loaded when first shown (service.tsx).
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { Link, useParams } from 'wouter-preact';
import { api, ApiFailure } from '../../api';
import { terminalStyles } from '../../terminal/terminal';
import { loadStylesheet } from '../../stylesheet';
import { RowActions } from '../services/row-actions';
import serviceCss from './service.css' with { type: 'file' };
import { Facts, StateBadge } from './facts';
import { useServiceLive } from './live';
import { Logs } from './logs';
import { Metrics } from './metrics';
import { recordKey, servicePath, type ServiceRecord } from './model';
import { ServiceConsole } from './service-console';
import { Timeline } from './timeline';

export const ready = Promise.all([terminalStyles(), loadStylesheet(serviceCss)]);

function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export function Page() {
  const name = decoded(useParams<{ name: string }>().name ?? '');
  const [wake, setWake] = useState(0);
  const heard = useServiceLive(name, () => setWake((n) => n + 1));
  const record = useQuery({
    queryKey: recordKey(name),
    queryFn: () => api<ServiceRecord>(servicePath(name)),
    refetchInterval: (query) => (query.state.status === 'success' && query.state.data?.state !== 'STOPPED' ? 10_000 : false),
  });
  const missing = record.error instanceof ApiFailure && record.error.status === 404;
  const running = record.isSuccess && record.data.state !== 'STOPPED';

  return (
    <section class="service-page">
      <nav class="service-crumbs" aria-label="Breadcrumb">
        <Link href="/services">Services</Link> <span aria-hidden="true">/</span> <span aria-current="page">{name}</span>
      </nav>
      <div class="service-head">
        <h1>{name}</h1>
        {record.data && <StateBadge record={record.data} />}
        {running && <RowActions service={record.data!} />}
      </div>
      <section class="service-panel" aria-labelledby="service-record-title">
        <h2 id="service-record-title">Record</h2>
        {record.isPending && <p class="service-muted">Loading…</p>}
        {missing && <p class="service-muted">{name} is not running: the controller has no service by this name now. This page follows it when it starts again.</p>}
        {record.isError && !missing && (
          <p class="error" role="alert">
            The record could not be read: {record.error.message}
          </p>
        )}
        {record.data && <Facts record={record.data} />}
      </section>
      <ServiceConsole name={name} wake={wake} />
      <div class="service-columns">
        <Metrics name={name} enabled={running} />
        <Timeline name={name} heard={heard} record={record.data ?? null} />
      </div>
      <Logs name={name} enabled={running} />
    </section>
  );
}

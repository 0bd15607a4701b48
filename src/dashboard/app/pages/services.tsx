/**
 * The Services page (issue 41): every service, kept current by the live events (no polling),
 * filtered in the browser; a new instance from a group; each row's Stop and Restart; and
 * Start, Stop, Restart of the selected services one at a time with a stagger between them.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../api';
import { BulkBar } from './services/bulk-bar';
import { FilterBar } from './services/filters';
import { GroupStart } from './services/group-start';
import { SERVICES_KEY, useLiveServices } from './services/live';
import { applyFilters, NO_FILTERS, sortServices, type Filters, type ServiceList } from './services/model';
import { ServicesTable } from './services/table';

export function Services() {
  useLiveServices();
  const list = useQuery({ queryKey: SERVICES_KEY, queryFn: () => api<ServiceList>('/api/services') });
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());

  const all = sortServices(list.data?.services ?? []);
  const shown = applyFilters(all, filters);
  // The selection is what is picked and still listed and shown, in list order: a service that
  // left, or that a filter hides, is never touched by a bulk action the operator cannot see.
  const selected = shown.filter((s) => picked.has(s.name));
  const groups = [...new Set(all.map((s) => s.groupName))].sort();
  const select = (names: string[], on: boolean) =>
    setPicked((before) => {
      const next = new Set(before);
      for (const name of names) {
        if (on) next.add(name);
        else next.delete(name);
      }
      return next;
    });

  return (
    <section class="svc-page">
      <h1>Services</h1>
      <GroupStart />
      {list.isPending && <p>Loading…</p>}
      {list.isError && (
        <p class="error" role="alert">
          The services could not be read: {list.error.message}
        </p>
      )}
      {list.isSuccess && (
        <>
          <FilterBar filters={filters} groups={groups} onChange={setFilters} />
          <BulkBar selected={selected} />
          <p class="notice">
            {shown.length} of {all.length} services shown
          </p>
          <ServicesTable services={shown} selected={new Set(selected.map((s) => s.name))} onSelect={select} />
        </>
      )}
    </section>
  );
}

/**
 * The live events about one service (the shared /api/events socket, live.ts): kept for the
 * timeline, and what they change is fetched again. Events come in bursts (a restart is
 * STOPPING, STOPPED, STARTING within moments), so the record is fetched once a burst is over;
 * when the burst ends with STOPPED the record is gone from the API (a stopped instance leaves
 * the registry), so the page marks it STOPPED itself instead of asking for a 404. Every step
 * about the service (its backups too) has the kept timeline read again, which names who caused
 * it; READY has the logs and samples read again. `onNewProcess` hears a start, so the console connects to the new process at once
 * instead of at its next retry.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { onLiveEvent, onReconnect } from '../../live';
import { recordKey, timelineKey, type ServiceRecord } from './model';
import { aboutService, changesTimeline, type HeardEvent } from './timeline-model';

/** How long a burst of events is gathered before the one fetch it causes. */
const GATHER_MS = 150;
/** The most live events kept for the timeline. */
const KEPT = 200;
const NEW_PROCESS: ReadonlySet<string> = new Set(['SERVICE_STARTING', 'SERVICE_READY', 'SERVICE_RECOVERED']);

const isLogOrMetrics = (key: readonly unknown[], name: string) => key[0] === 'service' && key[1] === name && (key[2] === 'logs' || key[2] === 'metrics');

export function useServiceLive(name: string, onNewProcess: () => void): HeardEvent[] {
  const queries = useQueryClient();
  const [heard, setHeard] = useState<HeardEvent[]>([]);
  const started = useRef(onNewProcess);
  started.current = onNewProcess;

  useEffect(() => {
    setHeard([]);
    let recordTimer: ReturnType<typeof setTimeout> | undefined;
    let timelineTimer: ReturnType<typeof setTimeout> | undefined;
    let last = '';
    const refreshRecord = () => void queries.invalidateQueries({ queryKey: recordKey(name), exact: true });
    const refreshTimeline = () => void queries.invalidateQueries({ queryKey: timelineKey(name), exact: true });
    const stopEvents = onLiveEvent((event) => {
      if (changesTimeline(event, name)) {
        clearTimeout(timelineTimer);
        timelineTimer = setTimeout(refreshTimeline, GATHER_MS);
      }
      if (event.data.service !== name) return;
      if (aboutService(event, name)) setHeard((before) => [...before.slice(1 - KEPT), { event, heardAt: Date.now() }]);
      last = event.type;
      clearTimeout(recordTimer);
      recordTimer = setTimeout(() => {
        if (last !== 'SERVICE_STOPPED') return refreshRecord();
        queries.setQueryData<ServiceRecord>(recordKey(name), (record) => record && { ...record, state: 'STOPPED', pid: null, startedAt: null, playerCount: 0, memoryUsedMb: 0 });
      }, GATHER_MS);
      if (NEW_PROCESS.has(event.type)) started.current();
      // A new process writes a new log; its samples start again.
      if (event.type === 'SERVICE_READY') void queries.invalidateQueries({ predicate: (query) => isLogOrMetrics(query.queryKey, name) });
    });
    // Events may have been missed while the socket was down.
    const stopReconnect = onReconnect(() => {
      refreshRecord();
      refreshTimeline();
    });
    return () => {
      clearTimeout(recordTimer);
      clearTimeout(timelineTimer);
      stopEvents();
      stopReconnect();
    };
  }, [name, queries]);
  return heard;
}

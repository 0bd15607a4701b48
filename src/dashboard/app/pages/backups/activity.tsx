/**
 * What the backup module announced while the page was open (BACKUP_STARTED, _COMPLETED,
 * _FAILED, _RESTORED, _PRUNED), newest first, in words: the run's progress as it happens. A
 * session without the events socket is told that the page reads again on a timer instead.
 */
import { useEffect, useState } from 'preact/hooks';
import { onLiveEvent, onReconnect, type LiveEvent } from '../../live';
import { BACKUP_EVENTS, byText, bytesText, NODE, spanText, targetText } from './model';

interface Heard {
  key: number;
  at: string;
  type: string;
  text: string;
}

const KEEP = 12;

function words(event: LiveEvent): string {
  const d = event.data;
  switch (event.type) {
    case 'BACKUP_STARTED':
      return `Backup #${d.id} of ${targetText({ targetType: d.targetType ?? '', targetName: d.targetName ?? '' })} started (by ${byText(d.triggeredBy ?? '')}).`;
    case 'BACKUP_COMPLETED':
      return d.status === 'SUCCESS'
        ? `Backup #${d.id} of ${d.targetName} succeeded: ${bytesText(Number(d.sizeBytes))} in ${spanText(Number(d.durationMs))}.`
        : `Backup #${d.id} of ${d.targetName} ended ${String(d.status).toLowerCase()}: nothing archived (its row says why).`;
    case 'BACKUP_FAILED':
      return `Backup #${d.id} of ${d.targetName} failed: ${d.reason}`;
    case 'BACKUP_RESTORED':
      return `Backup #${d.id} of ${d.targetName} was restored into ${d.targetPath} (by ${byText(d.triggeredBy ?? '')}).`;
    case 'BACKUP_PRUNED':
      return `Pruned ${d.count} ${d.count === '1' ? 'backup' : 'backups'} (${d.scheduleClass === 'all' ? 'every class' : d.scheduleClass}): ${bytesText(Number(d.freedBytes))} freed.`;
    default:
      return event.type;
  }
}

let counter = 0;

export function Activity({ live }: { live: boolean }) {
  const [heard, setHeard] = useState<Heard[]>([]);
  const [listening, setListening] = useState(false);
  useEffect(() => {
    if (!live) return;
    const stopEvents = onLiveEvent((event) => {
      if (!BACKUP_EVENTS.has(event.type)) return;
      setHeard((last) => [{ key: ++counter, at: event.timestamp, type: event.type, text: words(event) }, ...last].slice(0, KEEP));
    });
    const stopOpen = onReconnect(() => setListening(true));
    return () => {
      stopEvents();
      stopOpen();
    };
  }, [live]);

  return (
    <section class="bk-card bk-activity" aria-labelledby="bk-activity-title">
      <h2 id="bk-activity-title">As it happens</h2>
      {!live ? (
        <p class="bk-muted">
          Your account does not receive live events (that needs {NODE.live}): the runs are read again every 2 seconds while one runs, else every 15.
        </p>
      ) : heard.length === 0 ? (
        <p class="bk-muted">
          {listening ? 'Listening: backups starting and ending, restores and prunes show here as the controller announces them.' : 'Connecting to the controller’s events…'}
        </p>
      ) : null}
      {live && (
        <ol class="bk-heard" role="log" aria-label="Backup events heard live">
          {heard.map((h) => (
            <li key={h.key} data-type={h.type}>
              <time dateTime={h.at}>{new Date(h.at).toLocaleTimeString()}</time> <span>{h.text}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

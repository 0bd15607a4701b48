/**
 * The punishments module's page (/punishments; punishments.tsx loads it when first shown):
 * issue a punishment with the module's duration grammar read as it is typed, the message
 * templates (issue from one; edit them as an admin), the list filtered by standing, type,
 * player and issuer a page at a time, revoke with a reason, and a player's record. Kept current
 * by the module's events (PUNISHMENT_ISSUED, _REVOKED, _EXPIRED) instead of polling.
 *
 * The page needs svc.dashboard.punishments.view; issuing a type needs that type's node too,
 * revoking .revoke, a record .history and editing a template svc.dashboard.admin. The API
 * enforces them all; a session is told here beforehand which it lacks, and a refusal in words.
 */
import { useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { useLiveRefresh } from '../../live-refresh';
import { loadStylesheet } from '../../stylesheet';
import punishmentsCss from './punishments.css' with { type: 'file' };
import { useNow } from './clock';
import { IssueForm, type Preset } from './issue-form';
import { PunishmentListSection } from './list';
import { useMay } from './may';
import { BASE, LIST_KEY, MESSAGES_KEY, RECORD_KEY, type MessageTemplates, type PunishmentType } from './model';
import { PlayerRecord } from './record';
import { Templates } from './templates';

/** Resolves when the page's styles are in (the lazy loader shows the page only then). */
export const ready = loadStylesheet(punishmentsCss as string);

const LIVE_KEYS = [LIST_KEY, RECORD_KEY];
const isPunishmentEvent = (type: string) => type === 'PUNISHMENT_ISSUED' || type === 'PUNISHMENT_REVOKED' || type === 'PUNISHMENT_EXPIRED';

export function Page() {
  const may = useMay();
  const now = useNow();
  const [preset, setPreset] = useState<Preset | null>(null);
  const [record, setRecord] = useState<{ uuid: string; nonce: number } | null>(null);
  const messages = useQuery({ queryKey: MESSAGES_KEY, queryFn: () => api<MessageTemplates>(`${BASE}/messages`), staleTime: 60_000 });
  // A burst (fifty warnings from a script) is read once after it.
  useLiveRefresh(LIVE_KEYS, isPunishmentEvent, 150);

  const showRecord = (uuid: string) => setRecord((last) => ({ uuid, nonce: (last?.nonce ?? 0) + 1 }));
  const issueWith = (type: PunishmentType) => setPreset((last) => ({ type, nonce: (last?.nonce ?? 0) + 1 }));

  return (
    <section class="pn-page">
      <h1>Punishments</h1>
      <nav class="pn-jump" aria-label="On this page">
        <a href="#pn-issue-title">Issue</a>
        <a href="#pn-list-title">List</a>
        <a href="#pn-record-title">Player record</a>
        <a href="#pn-templates-title">Message templates</a>
      </nav>
      {may === undefined ? (
        <p class="pn-muted">Loading…</p>
      ) : (
        <>
          <IssueForm may={may} templates={messages.data} preset={preset} onShowRecord={showRecord} />
          <PunishmentListSection may={may} now={now} onShowRecord={showRecord} />
          <PlayerRecord may={may} now={now} shown={record} onShow={showRecord} />
          <Templates may={may} messages={messages} onIssue={issueWith} />
        </>
      )}
    </section>
  );
}

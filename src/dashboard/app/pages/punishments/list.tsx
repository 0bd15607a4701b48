/**
 * The punishments, newest first: those in force or every record, of one type or all, a page
 * of 50 at a time with the API's total. The API's list filters by standing and type only; a
 * player or issuer filter is matched here, over the newest records the page reads for it
 * (500 a request, at most SCAN_LIMIT), and the page says when it could not read them all.
 */
import { useState } from 'preact/hooks';
import { keepPreviousData, useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { useReadAgainAtEnd } from './clock';
import type { May } from './may';
import { BASE, LIST_KEY, NODE, normalizeUuid, ONE_OFF, TYPE_LABELS, TYPES, type Punishment, type PunishmentList } from './model';
import { OutcomeLine, refusalText, type Outcome } from './outcome';
import { RevokeDialog } from './revoke-dialog';
import { PunishmentTable } from './table';

const PAGE = 50;
const CHUNK = 500;
export const SCAN_LIMIT = 5000;

interface Props {
  may: May;
  now: number;
  onShowRecord: (uuid: string) => void;
}

interface Scan {
  rows: Punishment[];
  /** Every record matching standing and type, as the API counts them. */
  total: number;
}

function listPath(active: boolean, type: string, limit: number, offset: number): string {
  const query = new URLSearchParams({ active: String(active), limit: String(limit), offset: String(offset) });
  if (type) query.set('type', type);
  return `${BASE}?${query}`;
}

/** The newest records matching standing and type, up to SCAN_LIMIT (each id once, should the list move while read). */
async function scan(active: boolean, type: string): Promise<Scan> {
  const seen = new Set<number>();
  const rows: Punishment[] = [];
  let total = 0;
  for (let offset = 0; offset < SCAN_LIMIT; offset += CHUNK) {
    const page = await api<PunishmentList>(listPath(active, type, CHUNK, offset));
    total = page.total;
    for (const p of page.punishments) if (!seen.has(p.id) && seen.add(p.id)) rows.push(p);
    if (page.punishments.length < CHUNK || offset + CHUNK >= total) break;
  }
  return { rows, total };
}

function matchesPlayer(p: Punishment, text: string): boolean {
  const uuid = normalizeUuid(text);
  if (uuid !== null) return p.targetUuid === uuid;
  return p.targetName.toLowerCase().includes(text) || p.targetUuid.includes(text);
}

function matchesIssuer(p: Punishment, text: string): boolean {
  return p.issuerName.toLowerCase().includes(text) || p.issuer.toLowerCase() === text;
}

export function PunishmentListSection({ may, now, onShowRecord }: Props) {
  const [active, setActive] = useState(true);
  const [type, setType] = useState('');
  const [player, setPlayer] = useState('');
  const [issuer, setIssuer] = useState('');
  const [offset, setOffset] = useState(0);
  const [revoking, setRevoking] = useState<Punishment | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);

  const playerText = player.trim().toLowerCase();
  const issuerText = issuer.trim().toLowerCase();
  const matching = playerText !== '' || issuerText !== '';

  const paged = useQuery({
    queryKey: [...LIST_KEY, 'page', active, type, offset],
    queryFn: () => api<PunishmentList>(listPath(active, type, PAGE, offset)),
    placeholderData: keepPreviousData,
    enabled: !matching,
  });
  const scanned = useQuery({ queryKey: [...LIST_KEY, 'scan', active, type], queryFn: () => scan(active, type), placeholderData: keepPreviousData, enabled: matching });

  let rows: Punishment[] | undefined;
  let total = 0;
  let from = 0;
  let partial: Scan | null = null;
  if (matching) {
    if (scanned.data) {
      const found = scanned.data.rows.filter((p) => (playerText === '' || matchesPlayer(p, playerText)) && (issuerText === '' || matchesIssuer(p, issuerText)));
      total = found.length;
      from = Math.min(offset, Math.max(0, total - 1 - ((total - 1) % PAGE)));
      rows = found.slice(from, from + PAGE);
      if (scanned.data.rows.length < scanned.data.total) partial = scanned.data;
    }
  } else if (paged.data) {
    rows = paged.data.punishments;
    total = paged.data.total;
    from = offset;
  }
  const query = matching ? scanned : paged;
  useReadAgainAtEnd(rows, LIST_KEY);

  const change =
    <T,>(set: (value: T) => void) =>
    (value: T) => {
      set(value);
      setOffset(0);
    };
  const shown = rows?.length ?? 0;
  const filtered = type !== '' || matching;
  const mayRevoke = may(NODE.revoke);
  const mayRecord = may(NODE.history);

  return (
    <section class="pn-card" aria-labelledby="pn-list-title">
      <h2 id="pn-list-title">Punishments</h2>
      <form class="pn-filters" role="search" aria-label="Filter punishments" onSubmit={(e) => e.preventDefault()}>
        <div class="pn-field">
          <label for="pn-f-standing">Show</label>
          <select id="pn-f-standing" value={active ? 'active' : 'all'} onChange={(e) => change(setActive)((e.target as HTMLSelectElement).value === 'active')}>
            <option value="active">In force now</option>
            <option value="all">Every record</option>
          </select>
        </div>
        <div class="pn-field">
          <label for="pn-f-type">Of type</label>
          <select id="pn-f-type" value={type} onChange={(e) => change(setType)((e.target as HTMLSelectElement).value)}>
            <option value="">Any type</option>
            {TYPES.map((t) => (
              <option key={t} value={t}>
                {TYPE_LABELS[t]}
              </option>
            ))}
          </select>
        </div>
        <div class="pn-field">
          <label for="pn-f-player">Player</label>
          <input id="pn-f-player" type="search" value={player} onInput={(e) => change(setPlayer)((e.target as HTMLInputElement).value)} placeholder="Name, part of it, or UUID" autocomplete="off" spellcheck={false} />
        </div>
        <div class="pn-field">
          <label for="pn-f-issuer">Issued by</label>
          <input id="pn-f-issuer" type="search" value={issuer} onInput={(e) => change(setIssuer)((e.target as HTMLInputElement).value)} placeholder="Name or part of it" autocomplete="off" spellcheck={false} />
        </div>
      </form>
      {partial && (
        <p class="pn-muted" role="note">
          Player and issuer are matched among the {partial.rows.length} newest of {partial.total} records (the API’s list filters by standing and type only): narrow by type to reach older ones.
        </p>
      )}
      {!mayRevoke && <p class="pn-muted">Your account may not revoke punishments: that needs the permission {NODE.revoke}.</p>}
      <OutcomeLine outcome={outcome} />
      {query.isError && (
        <p role="alert" class="pn-error">
          {refusalText(query.error, 'The list could not be read')}
        </p>
      )}
      {query.isPending && <p class="pn-muted">Loading…</p>}
      {rows && (
        <PunishmentTable
          rows={rows}
          now={now}
          caption={active ? 'Punishments in force' : 'Every punishment'}
          empty={filtered ? 'No punishment matches these filters.' : active ? 'No punishment is in force.' : 'No punishment has been issued yet.'}
          actions={(p) => (
            <>
              {mayRecord && (
                <button type="button" class="pn-secondary" onClick={() => onShowRecord(p.targetUuid)} aria-label={`Record of ${p.targetName}`}>
                  Record
                </button>
              )}
              {mayRevoke && p.active && !ONE_OFF.has(p.type) && (
                <button
                  type="button"
                  class="pn-danger"
                  onClick={() => {
                    setOutcome(null);
                    setRevoking(p);
                  }}
                  aria-label={`Revoke punishment #${p.id} of ${p.targetName}`}
                >
                  Revoke
                </button>
              )}
            </>
          )}
        />
      )}
      <nav class="pn-pager" aria-label="Punishment pages">
        <button type="button" class="pn-secondary" disabled={from === 0} onClick={() => setOffset(Math.max(0, from - PAGE))}>
          Newer
        </button>
        <span aria-live="polite">{total === 0 || shown === 0 ? `none of ${total}` : `${from + 1}–${from + shown} of ${total}`}</span>
        <button type="button" class="pn-secondary" disabled={from + PAGE >= total} onClick={() => setOffset(from + PAGE)}>
          Older
        </button>
      </nav>
      {revoking && (
        <RevokeDialog
          punishment={revoking}
          onClose={() => setRevoking(null)}
          onDone={(message) => {
            setRevoking(null);
            setOutcome({ ok: true, text: message });
          }}
        />
      )}
    </section>
  );
}

/**
 * A player's record (GET /api/punishments/player/{uuid}): every punishment of theirs, newest
 * first, with what holds now. Opened from a row of the list, after issuing, or by a UUID or a
 * name typed here; the API takes uuids, so a name is looked up among the records (a player
 * never punished has an empty record whatever their uuid).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { api } from '../../api';
import { useReadAgainAtEnd } from './clock';
import { dateText } from './duration';
import { SCAN_LIMIT } from './list';
import type { May } from './may';
import { BASE, LOGIN_BLOCKING, NODE, normalizeUuid, ONE_OFF, RECORD_KEY, type Punishment, type PunishmentList } from './model';
import { OutcomeLine, refusalText, type Outcome } from './outcome';
import { RevokeDialog } from './revoke-dialog';
import { PunishmentTable } from './table';

const RECORD_LIMIT = 500;

interface Props {
  may: May;
  now: number;
  /** The player shown (a uuid), and a count that changes each time one is asked for (focus moves here). */
  shown: { uuid: string; nonce: number } | null;
  onShow: (uuid: string) => void;
}

/** The uuids the records know under this name (any case), newest first. */
async function uuidsNamed(name: string): Promise<{ uuid: string; name: string }[]> {
  const found = new Map<string, string>();
  const wanted = name.toLowerCase();
  for (let offset = 0; offset < SCAN_LIMIT; offset += 500) {
    const page = await api<PunishmentList>(`${BASE}?active=false&limit=500&offset=${offset}`);
    for (const p of page.punishments) if (p.targetName.toLowerCase() === wanted && !found.has(p.targetUuid)) found.set(p.targetUuid, p.targetName);
    if (page.punishments.length < 500 || offset + 500 >= page.total) break;
  }
  return [...found].map(([uuid, name]) => ({ uuid, name }));
}

/** One line on what holds now: banned, muted, or neither. */
function standingNow(rows: readonly Punishment[]): string {
  const inForce = rows.filter((p) => p.active && !ONE_OFF.has(p.type));
  const ban = inForce.find((p) => LOGIN_BLOCKING.has(p.type));
  const mute = inForce.find((p) => !LOGIN_BLOCKING.has(p.type));
  const until = (p: Punishment) => (p.expiresAt === null ? 'for good' : `until ${dateText(p.expiresAt)}`);
  const parts = [ban ? `banned ${until(ban)}${ban.scope === 'NETWORK' ? '' : ` (${ban.scope.toLowerCase()} ${ban.scopeTarget ?? ''})`}` : '', mute ? `muted ${until(mute)}` : ''].filter(Boolean);
  return parts.length === 0 ? 'Nothing holds now.' : `Now: ${parts.join(', ')}.`;
}

export function PlayerRecord({ may, now, shown, onShow }: Props) {
  const [text, setText] = useState('');
  const [lookup, setLookup] = useState<Outcome | null>(null);
  const [choices, setChoices] = useState<{ uuid: string; name: string }[]>([]);
  const [busy, setBusy] = useState(false);
  const [revoking, setRevoking] = useState<Punishment | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const allowed = may(NODE.history);
  const uuid = shown?.uuid ?? null;

  const record = useQuery({
    queryKey: [...RECORD_KEY, uuid],
    queryFn: () => api<PunishmentList>(`${BASE}/player/${encodeURIComponent(uuid!)}?limit=${RECORD_LIMIT}`),
    enabled: allowed && uuid !== null,
  });
  useReadAgainAtEnd(record.data?.punishments, RECORD_KEY);

  useEffect(() => {
    if (!shown) return;
    setOutcome(null);
    heading.current?.scrollIntoView({ block: 'start' });
    heading.current?.focus();
  }, [shown]);

  const find = async (event: Event) => {
    event.preventDefault();
    const typed = text.trim();
    setLookup(null);
    setChoices([]);
    if (typed === '') return setLookup({ ok: false, text: 'Name the player, or give their UUID.' });
    const asUuid = normalizeUuid(typed);
    if (asUuid !== null) return onShow(asUuid);
    setBusy(true);
    try {
      const found = await uuidsNamed(typed);
      if (found.length === 1) onShow(found[0]!.uuid);
      else if (found.length === 0) setLookup({ ok: false, text: `No punishment names a player called “${typed}”, so their record is empty. A player punished under another name is found by UUID.` });
      else {
        setChoices(found);
        setLookup({ ok: true, text: `${found.length} players have had the name “${typed}”: choose one.` });
      }
    } catch (error) {
      setLookup({ ok: false, text: refusalText(error, 'The records could not be searched') });
    } finally {
      setBusy(false);
    }
  };

  const rows = record.data?.punishments;
  const name = rows?.[0]?.targetName ?? null;

  return (
    <section class="pn-card" aria-labelledby="pn-record-title">
      <h2 id="pn-record-title" ref={heading} tabIndex={-1}>
        Player record{uuid && name ? `: ${name}` : ''}
      </h2>
      {!allowed ? (
        <p class="pn-muted">Your account may not read players’ records: that needs the permission {NODE.history}.</p>
      ) : (
        <>
          <form class="pn-find" role="search" aria-label="Find a player’s record" onSubmit={(e) => void find(e)}>
            <div class="pn-field">
              <label for="pn-record-player">Name or UUID</label>
              <input id="pn-record-player" value={text} onInput={(e) => setText((e.target as HTMLInputElement).value)} autocomplete="off" spellcheck={false} maxLength={64} />
            </div>
            <button type="submit" disabled={busy}>
              {busy ? 'Searching…' : 'Show record'}
            </button>
          </form>
          <OutcomeLine outcome={lookup} />
          {choices.length > 0 && (
            <ul class="pn-choices">
              {choices.map((c) => (
                <li key={c.uuid}>
                  <button type="button" class="pn-secondary" onClick={() => onShow(c.uuid)}>
                    {c.name} <code>{c.uuid}</code>
                  </button>
                </li>
              ))}
            </ul>
          )}
          {uuid && (
            <div class="pn-record">
              <p class="pn-record-who">
                UUID <code>{uuid}</code>
                {record.data && (
                  <span class="pn-record-sum">
                    {record.data.total} record{record.data.total === 1 ? '' : 's'}
                    {record.data.total > record.data.punishments.length ? ` (the ${record.data.punishments.length} newest shown)` : ''}. {standingNow(record.data.punishments)}
                  </span>
                )}
              </p>
              <OutcomeLine outcome={outcome} />
              {record.isError && (
                <p role="alert" class="pn-error">
                  {refusalText(record.error, 'The record could not be read')}
                </p>
              )}
              {record.isPending && <p class="pn-muted">Loading…</p>}
              {rows && (
                <PunishmentTable
                  rows={rows}
                  now={now}
                  withoutPlayer
                  caption={`Record of ${name ?? uuid}`}
                  empty="No punishment on this player’s record."
                  actions={(p) =>
                    may(NODE.revoke) && p.active && !ONE_OFF.has(p.type) ? (
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
                    ) : null
                  }
                />
              )}
            </div>
          )}
        </>
      )}
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

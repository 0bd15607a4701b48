/**
 * Punishments as a table (the list and a player's record): what, on whom, where, why, who
 * issued it and when, and where it stands now (in force until when, permanent, revoked by whom
 * and why, ended). Below 640 px each row becomes a card, every cell named by its column.
 */
import type { ComponentChildren } from 'preact';
import { dateText, remainingText } from './duration';
import { ONE_OFF, scopeText, TYPE_LABELS, type Punishment, type PunishmentType } from './model';

const BADGE: Readonly<Record<string, string>> = { BAN: 'ban', TEMPBAN: 'ban', IPBAN: 'ban', MUTE: 'mute', TEMPMUTE: 'mute', KICK: 'kick', WARN: 'warn' };

export function TypeBadge({ type }: { type: string }) {
  return (
    <span class={`pn-badge pn-badge-${BADGE[type] ?? 'other'}`} title={type}>
      {TYPE_LABELS[type as PunishmentType] ?? type}
    </span>
  );
}

/**
 * Where the record stands, in words, with its moments as <time> elements. `now` is the page's
 * clock tick (it re-renders the row as time passes); the time left is counted from this moment.
 */
export function Standing({ p }: { p: Punishment; now: number }) {
  const now = Date.now();
  if (ONE_OFF.has(p.type)) return <span class="pn-muted">Done when issued: nothing to lift</span>;
  if (p.active) {
    if (p.expiresAt === null) return <strong class="pn-in-force">In force, permanent</strong>;
    return (
      <span>
        <strong class="pn-in-force">In force</strong> until <time dateTime={p.expiresAt}>{dateText(p.expiresAt)}</time> <span class="pn-muted">({remainingText(Date.parse(p.expiresAt), now)})</span>
      </span>
    );
  }
  if (p.revokedAt !== null) {
    return (
      <span>
        Revoked by {p.revokedBy ?? 'someone'} on <time dateTime={p.revokedAt}>{dateText(p.revokedAt)}</time>
        {p.revokeReason ? <span class="pn-muted">: {p.revokeReason}</span> : null}
      </span>
    );
  }
  if (p.expiresAt !== null) {
    return (
      <span class="pn-muted">
        Ended <time dateTime={p.expiresAt}>{dateText(p.expiresAt)}</time>
      </span>
    );
  }
  return <span class="pn-muted">Not in force</span>;
}

interface Props {
  rows: readonly Punishment[];
  now: number;
  /** Leave the player's column out (a player's own record). */
  withoutPlayer?: boolean;
  caption: string;
  empty: ComponentChildren;
  /** The row's buttons (record, revoke). */
  actions: (p: Punishment) => ComponentChildren;
}

export function PunishmentTable({ rows, now, withoutPlayer, caption, empty, actions }: Props) {
  const columns = withoutPlayer ? 7 : 8;
  return (
    <div class="pn-table-wrap">
    <table class="pn-table">
      <caption class="pn-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          {!withoutPlayer && <th scope="col">Player</th>}
          <th scope="col">Type</th>
          <th scope="col">Where</th>
          <th scope="col">Reason</th>
          <th scope="col">Issued</th>
          <th scope="col">Standing</th>
          <th scope="col">
            <span class="pn-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.length === 0 && (
          <tr>
            <td colSpan={columns} class="pn-empty">
              {empty}
            </td>
          </tr>
        )}
        {rows.map((p) => (
          <tr key={p.id} data-id={p.id} class={p.active ? 'pn-row-active' : undefined}>
            <td class="pn-id">
              #{p.id}
            </td>
            {!withoutPlayer && (
              <td data-label="Player" class="pn-player">
                <strong>{p.targetName}</strong>
                {p.targetIp && <small class="pn-muted"> {p.targetIp}</small>}
              </td>
            )}
            <td data-label="Type" class="pn-type">
              <TypeBadge type={p.type} />
            </td>
            <td data-label="Where">{scopeText(p)}</td>
            <td data-label="Reason" class="pn-reason">
              {p.reason || <span class="pn-muted">none given</span>}
            </td>
            <td data-label="Issued" class="pn-issued">
              by {p.issuerName} <span class="pn-on">on </span>
              <time dateTime={p.issuedAt}>{dateText(p.issuedAt)}</time>
            </td>
            <td data-label="Standing" class="pn-standing">
              <Standing p={p} now={now} />
            </td>
            <td class="pn-row-actions">{actions(p)}</td>
          </tr>
        ))}
      </tbody>
    </table>
    </div>
  );
}

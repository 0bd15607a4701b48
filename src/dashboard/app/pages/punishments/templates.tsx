/**
 * The module's message templates (GET /api/punishments/messages): each type's text as the
 * player would read it, with "Issue with this template" to start the form above with that
 * type, and, for an admin, an editor with a live preview (PUT sends only the template
 * changed; the API keeps the others as they are).
 */
import { useState } from 'preact/hooks';
import { useQueryClient, type UseQueryResult } from '@tanstack/preact-query';
import { api } from '../../api';
import { fillTemplate, McText, PLACEHOLDERS } from './message';
import type { May } from './may';
import { BASE, MESSAGES_KEY, NODE, typeWord, type MessageKey, type MessageTemplates, type PunishmentType } from './model';
import { OutcomeLine, refusalText, type Outcome } from './outcome';

const TEMPLATE_LIMIT = 2048;

interface TemplateInfo {
  key: MessageKey;
  title: string;
  /** The type issuing from it starts with; none for the broadcast texts. */
  type: PunishmentType | null;
  when: string;
}

const TEMPLATES: readonly TemplateInfo[] = [
  { key: 'ban', title: 'Ban', type: 'BAN', when: 'Shown when a permanently banned player tries to join.' },
  { key: 'tempban', title: 'Temporary ban', type: 'TEMPBAN', when: 'Shown when a player banned for a time tries to join (a ban with a duration too).' },
  { key: 'ipban', title: 'IP ban', type: 'IPBAN', when: 'Shown when someone joins from a banned address.' },
  { key: 'mute', title: 'Mute', type: 'MUTE', when: 'Shown when a permanently muted player chats.' },
  { key: 'tempmute', title: 'Temporary mute', type: 'TEMPMUTE', when: 'Shown when a player muted for a time chats (a mute with a duration too).' },
  { key: 'kick', title: 'Kick', type: 'KICK', when: 'The disconnect message of a kick.' },
  { key: 'warn', title: 'Warning', type: 'WARN', when: 'Sent to the player when warned.' },
  { key: 'broadcast_issued', title: 'Announcement of a punishment', type: null, when: 'Kept for announcing punishments; this controller sends no message with it today.' },
  { key: 'broadcast_revoked', title: 'Announcement of a revoke', type: null, when: 'Kept for announcing revokes; this controller sends no message with it today.' },
];

interface Props {
  may: May;
  messages: UseQueryResult<MessageTemplates>;
  onIssue: (type: PunishmentType) => void;
}

/** Sample values for a preview: a day left for the temporary kinds. */
function sampleOf(key: MessageKey, text: string, issuer: string, now: number): string {
  const temporary = key === 'tempban' || key === 'tempmute';
  const type = key.startsWith('broadcast') ? 'ban' : key;
  return fillTemplate(text, { type, target: 'Steve', issuer, reason: 'Example reason', expiresAt: temporary ? now + 86_400_000 : null, now });
}

function TemplateCard({ info, text, may, now, onIssue }: { info: TemplateInfo; text: string; may: May; now: number; onIssue: (type: PunishmentType) => void }) {
  const queries = useQueryClient();
  const [draft, setDraft] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const fieldId = `pn-template-${info.key}`;
  const label = info.type ? typeWord(info.type) : info.title.toLowerCase();
  const save = async (event: Event) => {
    event.preventDefault();
    if (draft === null) return;
    setBusy(true);
    setOutcome(null);
    try {
      const saved = await api<MessageTemplates>(`${BASE}/messages`, { method: 'PUT', json: { [info.key]: draft } });
      queries.setQueryData(MESSAGES_KEY, saved);
      setDraft(null);
      setOutcome({ ok: true, text: `The ${label} template is saved: players get the new text from now on.` });
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, 'The template was not saved') });
    } finally {
      setBusy(false);
    }
  };
  return (
    <li class="pn-template">
      <h3 id={`${fieldId}-title`}>
        {info.title} <code class="pn-key">{info.key}</code>
      </h3>
      <p class="pn-muted">{info.when}</p>
      {draft === null ? (
        <>
          <McText text={sampleOf(info.key, text, may.issuerName, now)} label={`The ${label} template with example values`} />
          <div class="pn-actions">
            {info.type && (
              <button type="button" onClick={() => onIssue(info.type!)}>
                Issue with this template<span class="pn-hidden"> ({typeWord(info.type)})</span>
              </button>
            )}
            {may(NODE.admin) && (
              <button
                type="button"
                class="pn-secondary"
                onClick={() => {
                  setOutcome(null);
                  setDraft(text);
                }}
              >
                Edit<span class="pn-hidden"> the {label} template</span>
              </button>
            )}
          </div>
        </>
      ) : (
        <form onSubmit={(e) => void save(e)} class="pn-template-edit">
          <label for={fieldId}>Text of the {label} template</label>
          <textarea id={fieldId} value={draft} rows={4} maxLength={TEMPLATE_LIMIT} spellcheck={false} onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)} />
          <small class="pn-muted">
            {draft.length} of {TEMPLATE_LIMIT} characters. Preview:
          </small>
          <McText text={sampleOf(info.key, draft, may.issuerName, now)} label={`Preview of the ${label} template being edited`} />
          <div class="pn-actions">
            <button type="submit" disabled={busy || draft === text}>
              {busy ? 'Saving…' : 'Save'}
            </button>
            <button type="button" class="pn-secondary" onClick={() => setDraft(null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <OutcomeLine outcome={outcome} />
    </li>
  );
}

export function Templates({ may, messages, onIssue }: Props) {
  const [now] = useState(() => Date.now());
  return (
    <section class="pn-card" aria-labelledby="pn-templates-title">
      <h2 id="pn-templates-title">Message templates</h2>
      <p class="pn-muted">
        What players read when punished, one template a type. Issuing with a template starts the form above with its type; the player gets the text filled in.
        {!may(NODE.admin) && ` Changing a template needs the permission ${NODE.admin}.`}
      </p>
      <details class="pn-placeholders">
        <summary>Placeholders and colour codes</summary>
        <dl>
          {PLACEHOLDERS.map(([name, meaning]) => (
            <div key={name}>
              <dt>
                <code>{name}</code>
              </dt>
              <dd>{meaning}</dd>
            </div>
          ))}
        </dl>
        <p>
          <code>&amp;</code> followed by 0–9 or a–f sets a colour (<code>&amp;c</code> red, <code>&amp;a</code> green, <code>&amp;7</code> grey), <code>&amp;l</code> bold, <code>&amp;o</code> italic, <code>&amp;n</code> underlined, <code>&amp;r</code>{' '}
          back to plain; a new line starts a new line.
        </p>
      </details>
      {messages.isError && (
        <p role="alert" class="pn-error">
          {refusalText(messages.error, 'The templates could not be read')}
        </p>
      )}
      {messages.isPending && <p class="pn-muted">Loading…</p>}
      {messages.data && (
        <ul class="pn-templates">
          {TEMPLATES.map((info) => (
            <TemplateCard key={info.key} info={info} text={messages.data[info.key]} may={may} now={now} onIssue={onIssue} />
          ))}
        </ul>
      )}
    </section>
  );
}

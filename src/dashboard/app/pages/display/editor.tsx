/**
 * One group's display (GET /api/displays/{name}) in a form beside its live preview. The form
 * keeps only what the operator changed (a field typed back to what the controller holds is no
 * change), so Save sends a PUT with exactly those fields, nested as the display is (a map's
 * removed key as null). A change made elsewhere meanwhile (the module's DISPLAY_UPDATED) shows
 * in every field not being edited, and the page says so; an edit that the change made equal is
 * no longer one. A refusal names its field in the API's words (`body field "npc.floatingItem"
 * must be …`): shown there, and the keyboard is taken there. Reset asks first.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQuery, useQueryClient } from '@tanstack/preact-query';
import { api, ApiFailure } from '../../api';
import { refusalWords, type DisplayAccess } from './access';
import { sentence } from '../../sentence';
import { Field, fieldId, MapEditor, mapRowId, type Refusal } from './fields';
import {
  changeCount,
  changeWords,
  displayPath,
  emptyDraft,
  INVENTORY_FIELDS,
  KEYS,
  NPC_FIELDS,
  patchOf,
  rebase,
  SIGN_FIELDS,
  targetOf,
  type Display,
  type Draft,
  type MapName,
  type Target,
} from './model';
import { Preview } from './preview';
import { ResetDialog } from './reset-dialog';

interface Outcome {
  ok: boolean;
  text: string;
}

export function Editor({ name, access, drafts }: { name: string; access: DisplayAccess; drafts: Map<string, Draft> }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const one = useQuery({ queryKey: KEYS.one(name), queryFn: () => api<Display>(displayPath(name)) });
  // Opened from the list (or a link): the keyboard and the eye go to the editor.
  useEffect(() => {
    heading.current?.focus();
  }, [name]);
  const shownName = one.data?.name ?? name;
  return (
    <section class="dp-card dp-editor" aria-labelledby="dp-editor-title">
      <h2 id="dp-editor-title" ref={heading} tabIndex={-1}>
        Display of {shownName}
      </h2>
      {one.isPending && <p class="dp-muted">Loading…</p>}
      {one.isError && (
        <p role="alert" class="dp-error">
          {refusalWords(one.error, `The display of ${name} could not be read`)}
        </p>
      )}
      {one.data && <DisplayForm key={one.data.name} display={one.data} access={access} drafts={drafts} />}
    </section>
  );
}

/**
 * `drafts`: the unsaved changes of every group opened since the page was, by lower-case name,
 * so opening another group and coming back finds them (what the controller made equal meanwhile
 * is no longer a change).
 */
function DisplayForm({ display, access, drafts }: { display: Display; access: DisplayAccess; drafts: Map<string, Draft> }) {
  const queries = useQueryClient();
  const draftKey = display.name.toLowerCase();
  const [draft, setDraftState] = useState<Draft>(() => rebase(display, drafts.get(draftKey) ?? emptyDraft()));
  useEffect(() => {
    if (changeCount(draft) === 0) drafts.delete(draftKey);
    else drafts.set(draftKey, draft);
  }, [draft]);
  const [refused, setRefused] = useState<{ target: Target; message: string } | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [busy, setBusy] = useState(false);
  const [resetting, setResetting] = useState(false);
  const [meanwhile, setMeanwhile] = useState<string | null>(null);
  // What the form last took from the controller, as text: a refetch that brings the same display is no change.
  const seen = useRef(JSON.stringify(display));

  // The controller's display changed (an event, a reset, another operator): fields not being
  // edited show it at once; edits it made equal are no longer edits.
  useEffect(() => {
    const text = JSON.stringify(display);
    if (seen.current === text) return;
    seen.current = text;
    const count = changeCount(draft);
    if (count === 0) {
      setMeanwhile(`The display of ${display.name} was changed on the controller: the form shows it as it is now.`);
      return;
    }
    const next = rebase(display, draft);
    const kept = changeCount(next);
    setDraftState(next);
    setMeanwhile(
      `The display of ${display.name} was changed on the controller while you edit: the fields you did not change show the new values; ${
        kept === 0 ? 'your changes are what it holds now, so none is left to save' : `your ${kept} unsaved ${kept === 1 ? 'change is' : 'changes are'} kept`
      }.`,
    );
  }, [display]);

  const setDraft = (next: Draft) => {
    setDraftState(next);
    setOutcome(null);
    setMeanwhile(null);
  };
  // Editing a refused field (or map) takes its refusal away.
  const editField = (path: string) => (next: Draft) => {
    if (refused?.target.kind === 'field' && refused.target.path === path) setRefused(null);
    setDraft(next);
  };
  const editMap = (map: MapName) => (next: Draft) => {
    if (refused?.target.kind === 'map' && refused.target.map === map) setRefused(null);
    setDraft(next);
  };

  const count = changeCount(draft);
  const refusalFor = (path: string): Refusal | undefined => (refused?.target.kind === 'field' && refused.target.path === path ? { message: refused.message } : undefined);
  const mapRefusals = (map: MapName): Map<string, Refusal> => {
    const out = new Map<string, Refusal>();
    if (refused?.target.kind === 'map' && refused.target.map === map) out.set(refused.target.key ?? '', { message: refused.message });
    return out;
  };

  const save = async (event: Event) => {
    event.preventDefault();
    if (count === 0 || busy) return;
    const words = changeWords(draft);
    setBusy(true);
    setOutcome(null);
    setRefused(null);
    setMeanwhile(null);
    try {
      const saved = await api<Display>(displayPath(display.name), { method: 'PUT', json: patchOf(draft) });
      seen.current = JSON.stringify(saved);
      setDraftState(emptyDraft());
      setMeanwhile(null);
      queries.setQueryData(KEYS.one(display.name), saved);
      void queries.invalidateQueries({ queryKey: KEYS.list });
      void queries.invalidateQueries({ queryKey: ['display', 'label'] });
      setOutcome({ ok: true, text: `Saved ${words.length === 1 ? 'one change' : `${words.length} changes`} to the display of ${saved.name} (${words.join(', ')}): the display plugin shows ${words.length === 1 ? 'it' : 'them'} at once.` });
    } catch (error) {
      const target = error instanceof ApiFailure ? targetOf(error.message) : null;
      if (target && error instanceof ApiFailure) {
        setRefused({ target, message: sentence(error.message) });
        setOutcome({ ok: false, text: `${refusalWords(error, 'Not saved')} Nothing was changed; the refused field is marked.` });
        const focusId = target.kind === 'field' ? fieldId(target.path) : target.key !== null ? mapRowId(target.map, target.key) : `dp-${target.map}-new-key`;
        requestAnimationFrame(() => document.getElementById(focusId)?.focus());
      } else setOutcome({ ok: false, text: refusalWords(error, 'Not saved') });
    } finally {
      setBusy(false);
    }
  };

  const props = { display, draft };
  return (
    <>
      <div class="dp-editor-head">
        <p class="dp-muted">
          Kept in <code>config/modules/display/{display.name}.toml</code>. A saved change reaches the servers’ display plugin at once; the form and the preview follow changes made
          elsewhere as they happen.
        </p>
        <button type="button" class="dp-secondary dp-danger-text" onClick={() => setResetting(true)}>
          Reset to defaults…
        </button>
      </div>
      {meanwhile && (
        <p role="status" class="dp-note">
          {meanwhile}
        </p>
      )}
      <div class="dp-editor-body">
        <form class="dp-form" aria-label={`Display of ${display.name}`} onSubmit={(e) => void save(e)} noValidate>
          <fieldset>
            <legend>Sign</legend>
            <div class="dp-grid">
              {SIGN_FIELDS.map((info) => (
                <Field key={info.path} info={info} {...props} refusal={refusalFor(info.path)} onDraft={editField(info.path)} />
              ))}
            </div>
          </fieldset>
          <fieldset>
            <legend>NPC</legend>
            <div class="dp-grid">
              {NPC_FIELDS.map((info) => (
                <Field key={info.path} info={info} {...props} refusal={refusalFor(info.path)} onDraft={editField(info.path)} />
              ))}
            </div>
          </fieldset>
          <fieldset>
            <legend>Server picker</legend>
            <div class="dp-grid">
              {INVENTORY_FIELDS.map((info) => (
                <Field key={info.path} info={info} {...props} refusal={refusalFor(info.path)} onDraft={editField(info.path)} />
              ))}
            </div>
          </fieldset>
          <MapEditor map="statusItems" {...props} refusals={mapRefusals('statusItems')} onDraft={editMap('statusItems')} />
          <MapEditor map="states" {...props} refusals={mapRefusals('states')} onDraft={editMap('states')} />
          <details class="dp-help">
            <summary>Placeholders and colour codes</summary>
            <dl>
              <div>
                <dt>
                  <code>{'{name}'}</code>, <code>{'{target}'}</code>
                </dt>
                <dd>the group’s name (a server’s own name in the picker’s items)</dd>
              </div>
              <div>
                <dt>
                  <code>{'{players}'}</code>
                </dt>
                <dd>players on the group’s servers</dd>
              </div>
              <div>
                <dt>
                  <code>{'{max_players}'}</code>
                </dt>
                <dd>the group’s player limit</dd>
              </div>
              <div>
                <dt>
                  <code>{'{servers}'}</code>
                </dt>
                <dd>the group’s servers</dd>
              </div>
              <div>
                <dt>
                  <code>{'{state}'}</code>
                </dt>
                <dd>the state’s label (State labels below)</dd>
              </div>
            </dl>
            <p>
              <code>&amp;</code> followed by 0–9 or a–f sets a colour (<code>&amp;c</code> red, <code>&amp;a</code> green, <code>&amp;7</code> grey), <code>&amp;l</code> bold,{' '}
              <code>&amp;o</code> italic, <code>&amp;n</code> underlined, <code>&amp;m</code> struck through, <code>&amp;r</code> back to plain. Every text is one line of at most 256
              characters; the NPC name’s <code>||</code> separates animation frames.
            </p>
          </details>
          <div class="dp-savebar">
            <p class="dp-small" id="dp-changes" aria-live="polite">
              {count === 0 ? 'No unsaved change.' : `${count === 1 ? 'One unsaved change' : `${count} unsaved changes`}: ${changeWords(draft).join(', ')}.`}
            </p>
            <div class="dp-actions">
              <button type="submit" disabled={busy || count === 0} aria-describedby="dp-changes">
                {busy ? 'Saving…' : 'Save changes'}
              </button>
              <button
                type="button"
                class="dp-secondary"
                disabled={count === 0}
                onClick={() => {
                  setDraft(emptyDraft());
                  setRefused(null);
                }}
              >
                Discard changes
              </button>
            </div>
            {outcome &&
              (outcome.ok ? (
                <p role="status" class="dp-ok">
                  {outcome.text}
                </p>
              ) : (
                <p role="alert" class="dp-error">
                  {outcome.text}
                </p>
              ))}
          </div>
        </form>
        <Preview {...props} access={access} />
      </div>
      {resetting && (
        <ResetDialog
          name={display.name}
          unsaved={count}
          onClose={() => setResetting(false)}
          onDone={(fresh) => {
            seen.current = JSON.stringify(fresh);
            setResetting(false);
            setDraftState(emptyDraft());
            setRefused(null);
            setMeanwhile(null);
            queries.setQueryData(KEYS.one(display.name), fresh);
            void queries.invalidateQueries({ queryKey: KEYS.list });
            void queries.invalidateQueries({ queryKey: ['display', 'label'] });
            setOutcome({ ok: true, text: `The display of ${fresh.name} is the default again.` });
          }}
        />
      )}
    </>
  );
}

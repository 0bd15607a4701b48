/**
 * Add a pack hosted elsewhere (POST /api/resourcepacks): its name, the http(s) address players'
 * clients download it from, and its SHA-1, which clients check the download against. The
 * controller stores what it is given and never fetches the address, so a wrong hash only shows
 * when players fail to load the pack: the SHA-1 can be worked out here from a copy of the same
 * file (read on this computer, nothing is sent). Checked as the route checks it before sending.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import type { May } from './may';
import { formatBytes, LIMITS, nameProblem, NODE, promptProblem, RP_KEY, sha1Problem, urlProblem } from './model';
import { NeedsNode, OutcomeLine, refusalText, type Outcome } from './outcome';
import { createUrlPack } from './requests';
import { sha1OfFile } from './sha1';

const FIELDS = ['name', 'url', 'sha1', 'prompt'] as const;
type Field = (typeof FIELDS)[number];

export function UrlPackForm({ may }: { may: May }) {
  const queries = useQueryClient();
  const [values, setValues] = useState<Record<Field, string>>({ name: '', url: '', sha1: '', prompt: '' });
  const [force, setForce] = useState(false);
  const [problems, setProblems] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [hashing, setHashing] = useState<{ name: string; size: number; read: number } | null>(null);
  const [hashNote, setHashNote] = useState<string | null>(null);
  const live = useRef(true);
  const copyInput = useRef<HTMLInputElement>(null);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );

  const set = (field: Field, value: string) => {
    setValues((was) => ({ ...was, [field]: value }));
    // A problem on show is checked again as it is fixed.
    setProblems((shown) => {
      if (!shown[field]) return shown;
      const again = problemOf(field, value);
      return { ...shown, [field]: again ?? undefined };
    });
  };

  const hashCopy = async (file: File) => {
    setHashNote(null);
    setHashing({ name: file.name, size: file.size, read: 0 });
    try {
      const digest = await sha1OfFile(file, (read) => live.current && setHashing({ name: file.name, size: file.size, read }), () => live.current);
      if (!live.current) return;
      set('sha1', digest);
      setProblems((shown) => ({ ...shown, sha1: undefined }));
      setHashNote(`The SHA-1 of ${file.name} (${formatBytes(file.size)}) is filled in. The file at the address must be exactly this one.`);
    } catch (error) {
      if (live.current) setHashNote(`${file.name} could not be read: ${error instanceof Error ? error.message : String(error)}.`);
    } finally {
      if (live.current) setHashing(null);
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setOutcome(null);
    const found: Partial<Record<Field, string>> = {};
    for (const field of FIELDS) {
      const problem = problemOf(field, values[field]);
      if (problem) found[field] = problem;
    }
    setProblems(found);
    const first = FIELDS.find((f) => found[f]);
    if (first) {
      document.getElementById(`rp-url-${first}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      const pack = await createUrlPack({ name: values.name.trim(), url: values.url.trim(), sha1Hash: values.sha1.trim().toLowerCase(), promptMessage: values.prompt.trim(), force });
      setOutcome({ ok: true, text: `${pack.name} is added: players’ clients download it from ${pack.url} and check it against SHA-1 ${pack.sha1Hash}. Assign it below so players get it.` });
      setValues({ name: '', url: '', sha1: '', prompt: '' });
      setForce(false);
      setHashNote(null);
      if (copyInput.current) copyInput.current.value = '';
    } catch (error) {
      setOutcome({ ok: false, text: refusalText(error, `${values.name.trim()} was not added`) });
    } finally {
      setBusy(false);
      void queries.invalidateQueries({ queryKey: RP_KEY });
    }
  };

  const field = (id: Field, label: string, extra: { maxLength: number; hint?: string; type?: string; inputMode?: string; spellcheck?: boolean }) => (
    <div class="rp-field">
      <label for={`rp-url-${id}`}>{label}</label>
      <input
        id={`rp-url-${id}`}
        type={extra.type ?? 'text'}
        inputMode={extra.inputMode as 'url' | undefined}
        value={values[id]}
        maxLength={extra.maxLength}
        readOnly={busy}
        autoComplete="off"
        spellcheck={extra.spellcheck}
        aria-invalid={problems[id] ? true : undefined}
        aria-describedby={[extra.hint ? `rp-url-${id}-hint` : '', problems[id] ? `rp-url-${id}-problem` : ''].filter(Boolean).join(' ') || undefined}
        onInput={(e) => set(id, (e.currentTarget as HTMLInputElement).value)}
      />
      {extra.hint && (
        <small id={`rp-url-${id}-hint`} class="rp-muted">
          {extra.hint}
        </small>
      )}
      {problems[id] && (
        <small id={`rp-url-${id}-problem`} class="rp-problem">
          {problems[id]}
        </small>
      )}
    </div>
  );

  return (
    <form class="rp-form" aria-labelledby="rp-url-title" noValidate onSubmit={(e) => void submit(e)}>
      <h3 id="rp-url-title">A pack hosted elsewhere</h3>
      {!may(NODE.manage) && <NeedsNode what="add packs" node={NODE.manage} />}
      {field('name', 'Name', { maxLength: LIMITS.name })}
      {field('url', 'Address (URL)', { maxLength: LIMITS.url, type: 'url', inputMode: 'url', spellcheck: false, hint: 'Where players’ clients download the zip: a full http:// or https:// address. The controller does not fetch it.' })}
      {field('sha1', 'SHA-1 of the file', { maxLength: 40, spellcheck: false, hint: 'Clients refuse a download whose SHA-1 differs: 40 hexadecimal characters.' })}
      <div class="rp-field rp-copy">
        <label for="rp-url-copy">Or work the SHA-1 out from a copy of the file</label>
        <input
          id="rp-url-copy"
          ref={copyInput}
          type="file"
          accept=".zip,application/zip"
          disabled={busy || hashing !== null}
          aria-describedby="rp-url-copy-hint"
          onChange={(e) => {
            const chosen = (e.currentTarget as HTMLInputElement).files?.[0];
            if (chosen) void hashCopy(chosen);
          }}
        />
        <small id="rp-url-copy-hint" class="rp-muted">
          Read on this computer only; nothing is uploaded.
        </small>
        {hashing && (
          <span class="rp-progress">
            <progress max={Math.max(hashing.size, 1)} value={hashing.read} aria-label="Reading the copy" />
            <span role="status">Reading {hashing.name}…</span>
          </span>
        )}
        {hashNote && (
          <small role="status" class="rp-muted">
            {hashNote}
          </small>
        )}
      </div>
      {field('prompt', 'Prompt players see (optional)', { maxLength: LIMITS.prompt })}
      <label class="rp-check">
        <input type="checkbox" checked={force} disabled={busy} onChange={(e) => setForce((e.currentTarget as HTMLInputElement).checked)} />
        Required: kick a player who declines it
      </label>
      <div class="rp-actions">
        <button type="submit" disabled={busy || hashing !== null}>
          {busy ? 'Adding…' : 'Add the pack'}
        </button>
      </div>
      <OutcomeLine outcome={outcome} />
    </form>
  );
}

function problemOf(field: Field, value: string): string | null {
  switch (field) {
    case 'name':
      return nameProblem(value);
    case 'url':
      return urlProblem(value);
    case 'sha1':
      return sha1Problem(value);
    case 'prompt':
      return promptProblem(value);
  }
}

/**
 * Import a modpack as a new group or a new dedicated service: from its host (a Modrinth or
 * CurseForge page URL, slug or id, looked up first so the operator sees what it is), or from a
 * pack file uploaded with its progress. The target's fields are checked as the API checks them
 * before anything is sent; what the API refuses anyway is said in its words.
 */
import { useQuery } from '@tanstack/preact-query';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../../api';
import { FieldInput } from '../../forms/field-input';
import { fieldProblem, type Problems, type RawValue, type RawValues, type Specs } from '../../forms/fields';
import { DEDICATED_KEY, listDedicated } from '../dedicated/requests';
import { formatBytes } from '../files/format';
import { importFromHost, resolvePack, uploadPack, type PackFacts, type Upload } from './requests';
import { nameFromPack, OVERRIDE_DEFAULTS, OVERRIDE_SPECS, overrideBody, overrideKeys, TARGET_DEFAULTS, targetBody, targetCrossCheck, targetSpecs, type PackTarget } from './rules';
import './modpacks.css';

/** Largest one-piece upload (SERVER_BODY_CEILING, src/http/api-handler.ts). */
const MAX_UPLOAD_BYTES = 1024 * 1024 * 1024;

interface Props {
  target: PackTarget;
  /** Closed with what the controller said (the list reloads). */
  onDone: (message: string) => void;
  onClose: () => void;
}

const WHAT: Record<PackTarget, string> = { group: 'group', dedicated: 'dedicated service' };
const KIND_TEXT: Record<PackFacts['source'], string> = { MODRINTH: 'a Modrinth pack', CURSEFORGE_API: 'a CurseForge pack', SERVER_PACK: 'a server pack' };

/** The API's words for a refusal; `nothing` when no answer came. */
function failureText(failure: unknown, nothing: string): string {
  return failure instanceof ApiFailure && failure.status !== 0 ? failure.message : nothing;
}

/** What resolve found, as the operator decides on it. */
function Facts({ facts }: { facts: PackFacts }) {
  const files = facts.serverFiles !== null && facts.totalFiles !== null ? `${facts.serverFiles} for the server, of ${facts.totalFiles} listed` : 'not counted (the pack was not read)';
  return (
    <section class="mp-facts" aria-label="The modpack">
      <h3>{facts.name}</h3>
      {facts.summary && <p class="gd-muted">{facts.summary}</p>}
      <dl>
        <div>
          <dt>Pack version</dt>
          <dd>{facts.version || 'unknown'}</dd>
        </div>
        <div>
          <dt>Minecraft</dt>
          <dd>{facts.mcVersion || 'unknown'}</dd>
        </div>
        <div>
          <dt>Loader</dt>
          <dd>{facts.modloader ? `${facts.modloader} ${facts.modloaderVersion}`.trim() : 'not named'}</dd>
        </div>
        <div>
          <dt>Mods and files</dt>
          <dd>{files}</dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>
            {facts.host === 'modrinth' ? 'Modrinth' : 'CurseForge'}, {KIND_TEXT[facts.source]}
          </dd>
        </div>
      </dl>
      {facts.note && <p class="notice">{facts.note}</p>}
    </section>
  );
}

export function ModpackImportDialog({ target, onDone, onClose }: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const [mode, setMode] = useState<'host' | 'upload'>('host');
  const [source, setSource] = useState('');
  const [found, setFound] = useState<{ source: string; facts: PackFacts } | null>(null);
  const [looking, setLooking] = useState(false);
  const [lookFailure, setLookFailure] = useState<string | null>(null);
  const [file, setFile] = useState<File | null>(null);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const [values, setValues] = useState<RawValues>({ ...TARGET_DEFAULTS[target], ...OVERRIDE_DEFAULTS });
  const [nameTouched, setNameTouched] = useState(false);
  const [problems, setProblems] = useState<Problems>({});
  const [phase, setPhase] = useState<'idle' | 'uploading' | 'importing'>('idle');
  const [sent, setSent] = useState(0);
  /** The import went on in the background (answered 202): the dialog follows its job. */
  const [background, setBackground] = useState(false);
  /** Why the last import did not happen: the API's refusal, or the upload stopped. */
  const [refusal, setRefusal] = useState<string | null>(null);
  const [overridesOpen, setOverridesOpen] = useState(false);
  const [focusRequest, setFocusRequest] = useState<{ id: string } | null>(null);
  const upload = useRef<Upload | null>(null);
  const live = useRef(true);
  const ports = useQuery({ queryKey: DEDICATED_KEY, queryFn: listDedicated, enabled: target === 'dedicated' });

  const nameKey = target === 'group' ? 'groupName' : 'name';
  const specs: Specs = { ...targetSpecs(target), ...(mode === 'upload' ? Object.fromEntries(overrideKeys(target).map((key) => [key, OVERRIDE_SPECS[key as keyof typeof OVERRIDE_SPECS]])) : {}) };
  const busy = phase !== 'idle';

  useEffect(() => {
    const element = dialog.current;
    element?.showModal();
    return () => {
      live.current = false;
      upload.current?.abort();
      element?.close();
    };
  }, []);
  useLayoutEffect(() => {
    if (focusRequest) document.getElementById(focusRequest.id)?.focus();
  }, [focusRequest]);

  const problemsOf = (all: RawValues): Problems => {
    const out: Problems = {};
    for (const [key, spec] of Object.entries(specs)) {
      const problem = fieldProblem(spec, all[key] ?? '');
      if (problem) out[key] = problem;
    }
    return { ...targetCrossCheck(target, all, ports.data?.services ?? []), ...out };
  };

  const change = (key: string, value: RawValue) => {
    const next = { ...values, [key]: value };
    if (key === nameKey) setNameTouched(true);
    setValues(next);
    // A problem on show is checked again as it is fixed; a new one waits for the next Import.
    const now = problemsOf(next);
    setProblems((shown) => Object.fromEntries(Object.keys(shown).flatMap((k) => (now[k] ? [[k, now[k]!]] : []))));
  };

  /** The name field takes the pack's name until the operator types one. */
  const suggestName = (packName: string) => {
    if (nameTouched) return;
    const name = nameFromPack(packName);
    if (name) setValues((was) => ({ ...was, [nameKey]: name }));
  };

  const lookUp = async (event: Event) => {
    event.preventDefault();
    const asked = source.trim();
    if (asked === '') {
      setLookFailure('Give the modpack: its page URL, its slug or its id.');
      return;
    }
    setLooking(true);
    setLookFailure(null);
    setFound(null);
    try {
      const facts = await resolvePack(asked);
      if (!live.current) return;
      setFound({ source: asked, facts });
      suggestName(facts.name);
    } catch (failure) {
      if (live.current) setLookFailure(failureText(failure, 'The controller cannot be reached.'));
    } finally {
      if (live.current) setLooking(false);
    }
  };

  const switchMode = (next: 'host' | 'upload') => {
    setMode(next);
    setProblems({});
    setRefusal(null);
  };

  const close = () => {
    if (phase === 'importing') {
      // The file is in, or the host import was asked for: the controller goes on without the dialog.
      live.current = false;
      onDone(`The import goes on in the controller: the ${WHAT[target]} appears in the list once it is complete.`);
      return;
    }
    onClose();
  };

  const importIt = async (event: Event) => {
    event.preventDefault();
    const shown = problemsOf(values);
    setProblems(shown);
    setRefusal(null);
    const badFile = mode !== 'upload' ? null : file === null ? 'Choose a modpack file: a .mrpack, a CurseForge zip or a server pack zip.' : file.size > MAX_UPLOAD_BYTES ? fileProblemOf(file) : null;
    setFileProblem(badFile);
    if (overrideKeys(target).some((key) => shown[key])) setOverridesOpen(true);
    const first = Object.keys(specs).find((key) => shown[key]);
    if (badFile) return setFocusRequest({ id: 'mp-file' });
    if (first) return setFocusRequest({ id: `mp-${first}` });
    if (mode === 'host' && !found) return;

    const fields = targetBody(target, values);
    const waiting = () => setBackground(true);
    setBackground(false);
    try {
      let message: string;
      if (mode === 'host') {
        setPhase('importing');
        message = (await importFromHost(target, found!.source, fields, waiting, () => live.current)).message;
      } else {
        setPhase('uploading');
        setSent(0);
        const chosen = file!;
        const running = uploadPack(
          target,
          chosen,
          { ...fields, ...overrideBody(target, values) },
          (bytes) => {
            setSent(bytes);
            if (bytes >= chosen.size) setPhase('importing');
          },
          waiting,
          () => live.current,
        );
        upload.current = running;
        message = (await running.done).message;
      }
      if (live.current) onDone(message);
    } catch (failure) {
      if (!live.current) return;
      if (failure instanceof ApiFailure && failure.code === 'ABORTED') return setRefusal(failure.message);
      const said = failureText(failure, 'The controller cannot be reached; nothing was imported.');
      setRefusal(failure instanceof ApiFailure && failure.status !== 0 ? `The controller refused: ${said}` : said);
      // VALIDATION_FAILED names the field: `body "groupName" …`, `query parameter "port" …`.
      const named = failure instanceof ApiFailure && failure.code === 'VALIDATION_FAILED' ? /"([A-Za-z]+)"/.exec(said)?.[1] : undefined;
      if (named && specs[named]) {
        setProblems((was) => ({ ...was, [named]: said }));
        if (overrideKeys(target).includes(named)) setOverridesOpen(true);
      }
    } finally {
      upload.current = null;
      if (live.current) setPhase('idle');
    }
  };

  const field = (key: string) => {
    const spec = specs[key];
    if (!spec) return null;
    return <FieldInput key={key} id={`mp-${key}`} spec={spec} value={values[key] ?? ''} problem={problems[key]} readOnly={busy} onChange={(value) => change(key, value)} />;
  };
  const percent = file && file.size > 0 ? Math.min(100, Math.floor((sent / file.size) * 100)) : 0;
  const ready = mode === 'upload' || found !== null;

  return (
    <dialog
      ref={dialog}
      class="gd-dialog mp-dialog"
      aria-labelledby="mp-title"
      onCancel={(e) => {
        e.preventDefault();
        close();
      }}
    >
      <h2 id="mp-title">Import a modpack as a new {WHAT[target]}</h2>
      <fieldset class="mp-modes" disabled={busy}>
        <legend>Where the pack comes from</legend>
        <label>
          <input type="radio" name="mp-mode" checked={mode === 'host'} onChange={() => switchMode('host')} /> Modrinth or CurseForge
        </label>
        <label>
          <input type="radio" name="mp-mode" checked={mode === 'upload'} onChange={() => switchMode('upload')} /> A file from this computer
        </label>
      </fieldset>

      {mode === 'host' ? (
        <>
          <form class="mp-lookup" noValidate onSubmit={lookUp}>
            <div class={`gd-field${lookFailure ? ' gd-invalid' : ''}`}>
              <div class="gd-label">
                <label for="mp-source">Modpack</label>
              </div>
              <div class="mp-row">
                <input
                  id="mp-source"
                  type="text"
                  value={source}
                  readOnly={busy}
                  autoComplete="off"
                  spellcheck={false}
                  placeholder="the pack’s Modrinth or CurseForge page address, or its id"
                  aria-describedby={`mp-source-hint${lookFailure ? ' mp-source-problem' : ''}`}
                  aria-invalid={lookFailure ? true : undefined}
                  onInput={(e) => {
                    setSource((e.currentTarget as HTMLInputElement).value);
                    setFound(null);
                  }}
                />
                <button type="submit" disabled={looking || busy}>
                  {looking ? 'Looking up…' : 'Look up'}
                </button>
              </div>
              <small id="mp-source-hint">A Modrinth or CurseForge page URL, a slug (also modrinth:… or curseforge:…), or a project id.</small>
              {lookFailure && (
                <p class="gd-problem" id="mp-source-problem" role="alert">
                  {lookFailure}
                </p>
              )}
            </div>
          </form>
          {found && <Facts facts={found.facts} />}
        </>
      ) : (
        <div class={`gd-field${fileProblem ? ' gd-invalid' : ''}`}>
          <div class="gd-label">
            <label for="mp-file">Modpack file</label>
          </div>
          <input
            id="mp-file"
            type="file"
            accept=".mrpack,.zip"
            disabled={busy}
            aria-describedby={`mp-file-hint${fileProblem ? ' mp-file-problem' : ''}`}
            aria-invalid={fileProblem ? true : undefined}
            onChange={(e) => {
              const chosen = (e.currentTarget as HTMLInputElement).files?.[0] ?? null;
              setFile(chosen);
              setFileProblem(chosen && chosen.size > MAX_UPLOAD_BYTES ? fileProblemOf(chosen) : null);
              if (chosen) suggestName(chosen.name);
            }}
          />
          <small id="mp-file-hint">A Modrinth .mrpack, a CurseForge zip or a server pack zip, up to 1 GiB.</small>
          {fileProblem && (
            <p class="gd-problem" id="mp-file-problem" role="alert">
              {fileProblem}
            </p>
          )}
        </div>
      )}

      <form class="mp-target" noValidate onSubmit={importIt}>
        <fieldset>
          <legend>The new {WHAT[target]}</legend>
          <div class="gd-grid">{Object.keys(targetSpecs(target)).map(field)}</div>
        </fieldset>
        {mode === 'upload' && (
          <details class="gd-section" open={overridesOpen} onToggle={(e) => setOverridesOpen((e.currentTarget as HTMLDetailsElement).open)}>
            <summary>Loader and Minecraft version (when the pack does not say)</summary>
            <div class="gd-grid">{overrideKeys(target).map(field)}</div>
          </details>
        )}
        {phase === 'uploading' && file && (
          <div class="mp-progress">
            <progress max={Math.max(file.size, 1)} value={sent} aria-label="Upload progress" />
            <span role="status">
              Uploading {file.name}: {formatBytes(sent)} of {formatBytes(file.size)} ({percent}%)
            </span>
          </div>
        )}
        {phase === 'importing' && (
          <p class="notice" role="status">
            {background
              ? `This takes a while: the controller goes on with it, and this dialog follows it. Closing it does not stop the import; the ${WHAT[target]} appears in the list once it is complete.`
              : `${mode === 'upload' ? 'Uploaded; the' : 'The'} controller is importing the pack: its mods are downloaded and checked…`}
          </p>
        )}
        {Object.keys(problems).length > 0 && !refusal && (
          <p class="error" role="alert">
            {Object.keys(problems).length === 1 ? 'One field needs' : `${Object.keys(problems).length} fields need`} fixing (marked above); nothing was sent.
          </p>
        )}
        {refusal && (
          <p class="error" role="alert">
            {refusal}
          </p>
        )}
        <div class="gd-actions">
          <button type="submit" disabled={busy || !ready}>
            {phase === 'uploading' ? 'Uploading…' : phase === 'importing' ? 'Importing…' : mode === 'upload' ? `Upload and import as ${WHAT[target]}` : `Import as ${WHAT[target]}`}
          </button>
          <button type="button" class="gd-secondary" onClick={phase === 'uploading' ? () => upload.current?.abort() : close}>
            {phase === 'uploading' ? 'Stop the upload' : phase === 'importing' ? 'Close' : 'Cancel'}
          </button>
        </div>
        {mode === 'host' && !found && <p class="gd-muted mp-next">Look the pack up first: what it is shows here before anything is imported.</p>}
      </form>
    </dialog>
  );
}

function fileProblemOf(file: File): string {
  return `${file.name} is ${formatBytes(file.size)}: one upload takes at most 1 GiB. Import a bigger pack from its host instead.`;
}

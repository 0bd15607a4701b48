/**
 * Upload a pack the controller hosts: a zip from this computer, sent as it is with its progress
 * (and Stop), then stored, hashed (SHA-1) and checked to be a zip by the controller, which
 * serves it to players' clients at /api/resourcepacks/files/<uuid>.zip. The name, the prompt and
 * whether a player who declines is kicked go with it. What the controller refuses (not a zip,
 * over its size limit, no permission) is said in words.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { ApiFailure } from '../../api';
import type { May } from './may';
import { formatBytes, LIMITS, nameFromFile, nameProblem, NODE, promptProblem, RP_KEY } from './model';
import { NeedsNode, OutcomeLine, refusalText, type Outcome } from './outcome';
import { sentence } from '../../sentence';
import { uploadPack, type Upload } from './requests';

type Phase = 'idle' | 'sending' | 'storing';

/** Whether the file starts as a zip does (a local file header, PK\3\4): the controller checks it too, with the end record. */
async function looksLikeZip(file: File): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  return head.length === 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
}

export function UploadForm({ may }: { may: May }) {
  const queries = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const [prompt, setPrompt] = useState('');
  const [force, setForce] = useState(false);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const [phase, setPhase] = useState<Phase>('idle');
  const [sent, setSent] = useState(0);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const upload = useRef<Upload | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  // Leaving the page stops an upload under way (nothing half-sent is kept by the controller).
  useEffect(() => () => upload.current?.abort(), []);

  const busy = phase !== 'idle';
  const check = (): Record<string, string> => {
    const found: Record<string, string> = {};
    if (!file) found.file = 'Choose the pack’s zip file.';
    const n = nameProblem(name);
    if (n) found.name = n;
    const p = promptProblem(prompt);
    if (p) found.prompt = p;
    return found;
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setOutcome(null);
    const found = check();
    if (file && !found.file && !(await looksLikeZip(file))) found.file = `${file.name} is not a zip file: a resource pack is a zip with pack.mcmeta at its top.`;
    setProblems(found);
    const first = ['file', 'name', 'prompt'].find((k) => found[k]);
    if (first) {
      document.getElementById(`rp-up-${first}`)?.focus();
      return;
    }
    const chosen = file!;
    const fields = { name: name.trim(), force, prompt: prompt.trim() };
    setSent(0);
    setPhase('sending');
    const running = uploadPack(chosen, fields, (bytes) => {
      setSent(bytes);
      if (bytes >= chosen.size) setPhase('storing');
    });
    upload.current = running;
    try {
      const pack = await running.done;
      setOutcome({
        ok: true,
        text: (
          <>
            {pack.name} is uploaded ({formatBytes(pack.fileSize)}, SHA-1 <code>{pack.sha1Hash}</code>). Assign it below so players get it.
          </>
        ),
      });
      setFile(null);
      setName('');
      setNameTouched(false);
      setPrompt('');
      setForce(false);
      if (fileInput.current) fileInput.current.value = '';
    } catch (error) {
      if (error instanceof ApiFailure && error.code === 'ABORTED') {
        setOutcome({ ok: false, text: `The upload of ${chosen.name} was stopped: the controller keeps nothing of it.` });
      } else if (error instanceof ApiFailure && error.code === 'PAYLOAD_TOO_LARGE') {
        setOutcome({ ok: false, text: `${chosen.name} (${formatBytes(chosen.size)}) is over the controller’s upload limit, set by [resourcepacks] max_upload_bytes in svc.toml: ${sentence(error.message)}` });
      } else {
        setOutcome({ ok: false, text: refusalText(error, `${chosen.name} was not uploaded`) });
      }
    } finally {
      upload.current = null;
      setPhase('idle');
      void queries.invalidateQueries({ queryKey: RP_KEY });
    }
  };

  const percent = file && file.size > 0 ? Math.min(100, Math.floor((sent / file.size) * 100)) : 0;
  const described = (id: string, hint?: string) => [hint, problems[id] ? `rp-up-${id}-problem` : undefined].filter(Boolean).join(' ') || undefined;
  const problem = (id: string) =>
    problems[id] ? (
      <small id={`rp-up-${id}-problem`} class="rp-problem">
        {problems[id]}
      </small>
    ) : null;

  return (
    <form class="rp-form" aria-labelledby="rp-upload-title" noValidate onSubmit={(e) => void submit(e)}>
      <h3 id="rp-upload-title">Upload a zip</h3>
      {!may(NODE.manage) && <NeedsNode what="add packs" node={NODE.manage} />}
      <div class="rp-field">
        <label for="rp-up-file">Pack file</label>
        <input
          id="rp-up-file"
          ref={fileInput}
          type="file"
          accept=".zip,application/zip"
          disabled={busy}
          aria-invalid={problems.file ? true : undefined}
          aria-describedby={described('file', 'rp-up-file-hint')}
          onChange={(e) => {
            const chosen = (e.currentTarget as HTMLInputElement).files?.[0] ?? null;
            setFile(chosen);
            setProblems(({ file: _gone, ...rest }) => rest);
            if (chosen && !nameTouched) setName(nameFromFile(chosen.name));
          }}
        />
        <small id="rp-up-file-hint" class="rp-muted">
          The zip as players’ clients load it. The controller takes up to its [resourcepacks] max_upload_bytes (250 MiB unless set).
        </small>
        {problem('file')}
      </div>
      <div class="rp-field">
        <label for="rp-up-name">Name</label>
        <input
          id="rp-up-name"
          value={name}
          maxLength={LIMITS.name}
          readOnly={busy}
          autoComplete="off"
          aria-invalid={problems.name ? true : undefined}
          aria-describedby={described('name')}
          onInput={(e) => {
            setName((e.currentTarget as HTMLInputElement).value);
            setNameTouched(true);
          }}
        />
        {problem('name')}
      </div>
      <div class="rp-field">
        <label for="rp-up-prompt">Prompt players see (optional)</label>
        <input
          id="rp-up-prompt"
          value={prompt}
          maxLength={LIMITS.prompt}
          readOnly={busy}
          autoComplete="off"
          aria-invalid={problems.prompt ? true : undefined}
          aria-describedby={described('prompt')}
          onInput={(e) => setPrompt((e.currentTarget as HTMLInputElement).value)}
        />
        {problem('prompt')}
      </div>
      <label class="rp-check">
        <input type="checkbox" checked={force} disabled={busy} onChange={(e) => setForce((e.currentTarget as HTMLInputElement).checked)} />
        Required: kick a player who declines it
      </label>
      {phase !== 'idle' && file && (
        <div class="rp-progress">
          <progress max={Math.max(file.size, 1)} value={sent} aria-label="Upload progress" />
          <span role="status">
            {phase === 'sending'
              ? `Uploading ${file.name}: ${formatBytes(sent)} of ${formatBytes(file.size)} (${percent}%)`
              : `${file.name} is sent: the controller is storing and checking it…`}
          </span>
        </div>
      )}
      <div class="rp-actions">
        <button type="submit" disabled={busy}>
          {phase === 'sending' ? 'Uploading…' : phase === 'storing' ? 'Storing…' : 'Upload'}
        </button>
        {phase === 'sending' && (
          <button type="button" class="rp-secondary" onClick={() => upload.current?.abort()}>
            Stop the upload
          </button>
        )}
      </div>
      <OutcomeLine outcome={outcome} />
    </form>
  );
}

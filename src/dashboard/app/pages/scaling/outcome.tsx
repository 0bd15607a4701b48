/** A save's answer under the form that sent it: saved (a status), refused (an alert), or the file to put in place. */
import { useRef, useState } from 'preact/hooks';
import type { SaveOutcome } from './save';

export function SaveOutcomeView({ outcome, group, savedText }: { outcome: SaveOutcome | null; group: string; savedText: string }) {
  if (!outcome) return null;
  if (outcome.kind === 'saved') {
    return (
      <p role="status" class="sc-ok">
        {savedText}
      </p>
    );
  }
  if (outcome.kind === 'refused') {
    return (
      <p role="alert" class="sc-error">
        {outcome.text}
      </p>
    );
  }
  return <FileHandOver text={outcome.text} toml={outcome.toml} group={group} />;
}

function FileHandOver({ text, toml, group }: { text: string; toml: string; group: string }) {
  const area = useRef<HTMLTextAreaElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const copy = async () => {
    area.current?.select();
    try {
      await navigator.clipboard.writeText(toml);
      setCopied('Copied.');
    } catch {
      // No clipboard outside a secure context: the text is selected for Ctrl+C instead.
      setCopied('Selected: press Ctrl+C (⌘C) to copy it.');
    }
  };
  const id = `sc-file-${group.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  return (
    <div class="sc-handover">
      <p role="alert" class="sc-error">
        {text}
      </p>
      <label for={id}>{group}.toml with your change</label>
      <textarea id={id} ref={area} readOnly rows={Math.min(18, toml.split('\n').length)} spellcheck={false} value={toml} />
      <div class="sc-actions">
        <button type="button" class="sc-secondary" onClick={() => void copy()}>
          Copy the file’s text
        </button>
        <span role="status" class="sc-muted">
          {copied}
        </span>
      </div>
    </div>
  );
}

import { useEffect, useRef, useState } from 'preact/hooks';

/** How long "Copied." stays beside the button. */
const SAID_MS = 5_000;

/** Selects the whole text of `element`, for the operator to copy by hand. */
function selectText(element: HTMLElement | null): boolean {
  const selection = window.getSelection();
  if (!element || !selection) return false;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
  element.focus();
  return true;
}

/**
 * Text an operator pastes elsewhere (a certificate, agent.toml lines, a command) in a <pre>,
 * with a Copy button: the clipboard where the browser gives one (a secure context: https or
 * localhost), else the text is selected for Ctrl+C. What happened is said beside the button.
 */
export function CopyBlock({ label, text }: { label: string; text: string }) {
  const block = useRef<HTMLPreElement>(null);
  const [said, setSaid] = useState('');
  useEffect(() => {
    if (said === '') return;
    const timer = setTimeout(() => setSaid(''), SAID_MS);
    return () => clearTimeout(timer);
  }, [said]);
  const copy = async () => {
    try {
      // Absent on a plain-http address other than localhost: the browser offers no clipboard there.
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
      setSaid('Copied.');
    } catch {
      setSaid(selectText(block.current) ? 'Selected: press Ctrl+C (⌘C on a Mac) to copy.' : 'Select the text to copy it.');
    }
  };
  return (
    <div class="nd-copy">
      <div class="nd-copy-head">
        <span class="nd-copy-label">{label}</span>
        <span class="nd-copy-said" role="status">{said}</span>
        <button type="button" class="nd-secondary" aria-label={`Copy ${label.toLowerCase()}`} onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <pre ref={block} tabIndex={0} aria-label={label}>
        {text}
      </pre>
    </div>
  );
}

/**
 * The Command field under a terminal: a normal input (typing never goes into xterm). Enter runs
 * the line, ↑ and ↓ walk the history (history.ts), and Tab, when the console can complete and
 * something is typed, asks for the candidates of the word under the cursor (completion.ts): one
 * is filled in, several are listed to pick from. With nothing typed, Tab moves the focus on as
 * usual, so the keyboard never gets stuck here.
 */
import { useId, useMemo, useRef, useState } from 'preact/hooks';
import { applyCompletion } from './completion';
import { CommandHistory } from './history';

interface CommandLineProps {
  /** Runs a command; false when it could not be sent (the text stays for another try). */
  onRun: (command: string) => boolean;
  /** Candidates for the word before the cursor, given the input up to it. */
  complete?: (input: string) => Promise<string[]>;
  /** Where this console's history is kept (localStorage key). */
  historyKey: string;
  placeholder?: string;
}

export function CommandLine({ onRun, complete, historyKey, placeholder }: CommandLineProps) {
  const history = useMemo(() => new CommandHistory(historyKey), [historyKey]);
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [text, setText] = useState('');
  const [candidates, setCandidates] = useState<string[]>([]);
  const [note, setNote] = useState('');

  const put = (value: string, cursor = value.length) => {
    setText(value);
    const field = input.current;
    if (field) {
      field.value = value;
      field.setSelectionRange(cursor, cursor);
    }
  };

  const run = (event: Event) => {
    event.preventDefault();
    if (text.trim() === '') return;
    if (!onRun(text)) return setNote('Not connected: the command was not sent.');
    history.add(text);
    put('');
    setCandidates([]);
    setNote('');
  };

  const tab = async (field: HTMLInputElement) => {
    if (!complete) return;
    const asked = field.value;
    const cursor = field.selectionStart ?? asked.length;
    const found = await complete(asked.slice(0, cursor));
    // Typed on meanwhile: this answer is about a line that is gone.
    if (field.value !== asked) return;
    const done = applyCompletion(asked, cursor, found);
    put(done.text, done.cursor);
    setCandidates(done.shown);
    setNote(found.length === 0 ? `No completions for “${asked.slice(0, cursor)}”` : '');
  };

  const keyDown = (event: KeyboardEvent) => {
    const field = event.currentTarget as HTMLInputElement;
    if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
      const next = event.key === 'ArrowUp' ? history.older(field.value) : history.newer();
      if (next === null) return;
      event.preventDefault();
      put(next);
    } else if (event.key === 'Tab' && !event.shiftKey && complete && field.value.trim() !== '') {
      event.preventDefault();
      void tab(field);
    } else if (event.key === 'Escape') {
      setCandidates([]);
    }
  };

  const pick = (word: string) => {
    const field = input.current;
    const cursor = field?.selectionStart ?? text.length;
    const done = applyCompletion(text, cursor, [word]);
    put(done.text, done.cursor);
    setCandidates([]);
    field?.focus();
  };

  return (
    <form class="term-command" onSubmit={run}>
      <div class="term-command-row">
        <label for={id}>Command</label>
        <input
          id={id}
          ref={input}
          value={text}
          autocomplete="off"
          autocapitalize="off"
          spellcheck={false}
          placeholder={placeholder}
          onInput={(e) => setText(e.currentTarget.value)}
          onKeyDown={keyDown}
        />
        <button type="submit">Run</button>
      </div>
      {candidates.length > 0 && (
        <ul class="term-completions" aria-label="Completions">
          {candidates.map((word) => (
            <li key={word}>
              <button type="button" class="term-secondary" onClick={() => pick(word)}>
                {word}
              </button>
            </li>
          ))}
        </ul>
      )}
      <p class="term-hint" role="status">
        {note || (complete ? 'Enter runs · ↑ ↓ history · Tab completes' : 'Enter runs · ↑ ↓ history')}
      </p>
    </form>
  );
}

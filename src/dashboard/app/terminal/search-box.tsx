/**
 * The search over a terminal's output (xterm's search add-on: the whole scrollback, not only
 * what is on screen). Enter finds the next match, Shift+Enter the previous; Escape clears the
 * search and goes back to the newest line.
 */
import { useState } from 'preact/hooks';
import type { MountedTerminal } from './xterm-runtime';

export function SearchBox({ terminal, label }: { terminal: MountedTerminal | null; label: string }) {
  const [text, setText] = useState('');
  const [missing, setMissing] = useState(false);
  const find = (backwards: boolean) => {
    if (!terminal || text === '') return;
    setMissing(!terminal.find(text, backwards));
  };
  const clear = () => {
    setText('');
    setMissing(false);
    terminal?.clearSearch();
    terminal?.scrollToBottom();
  };
  return (
    <form class="term-search" role="search" aria-label={label} onSubmit={(e) => e.preventDefault()}>
      <input
        type="search"
        aria-label="Search output"
        placeholder="Search output"
        value={text}
        disabled={!terminal}
        onInput={(e) => {
          setText(e.currentTarget.value);
          setMissing(false);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            find(e.shiftKey);
          } else if (e.key === 'Escape') {
            clear();
          }
        }}
      />
      <button type="button" class="term-secondary" aria-label="Previous match" disabled={!terminal || text === ''} onClick={() => find(true)}>
        ↑
      </button>
      <button type="button" class="term-secondary" aria-label="Next match" disabled={!terminal || text === ''} onClick={() => find(false)}>
        ↓
      </button>
      <span role="status" class="term-search-status">
        {missing ? 'No match' : ''}
      </span>
    </form>
  );
}

/**
 * A console's output: xterm.js, loaded when the first terminal is shown (a dynamic import: the
 * first page does not carry it), fitted to its box, with a search over the output. The region is
 * role="log" named by `label`; xterm's drawing is hidden from assistive technology and the
 * newest lines are kept in it as plain text instead (mirror.ts). Lines come from a
 * TerminalOutput the page fills (output.ts: one write per frame, bounded); a status line says
 * how the page's socket is doing.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { appendToMirror } from './mirror';
import type { TerminalOutput } from './output';
import { SearchBox } from './search-box';
import type { SocketStatus } from './ticket-socket';
import type { MountedTerminal } from './xterm-runtime';
import terminalCss from './terminal.css' with { type: 'file' };
import { loadStylesheet } from '../stylesheet';

/** The terminal's own styles (a page loaded later awaits them before it shows, so nothing jumps). */
export const terminalStyles = (): Promise<void> => loadStylesheet(terminalCss);

interface TerminalProps {
  output: TerminalOutput;
  /** The log region's accessible name, e.g. "Console output". */
  label: string;
  /** The page's socket, told on the status line. */
  status: SocketStatus;
}

/** The status line's words for a socket state. */
export function describeStatus(status: SocketStatus): string {
  switch (status.kind) {
    case 'connecting':
      return 'Connecting…';
    case 'open':
      return 'Connected';
    case 'waiting':
      return `Disconnected: ${status.reason}. Trying again in ${Math.round(status.retryInMs / 1000)} s`;
    case 'refused':
      return `Refused: ${status.reason}. Sign in with an admin token to use this console.`;
  }
}

export function Terminal({ output, label, status }: TerminalProps) {
  const screen = useRef<HTMLDivElement>(null);
  const mirror = useRef<HTMLOListElement>(null);
  const [terminal, setTerminal] = useState<MountedTerminal | null>(null);
  const [failure, setFailure] = useState<string | null>(null);

  useEffect(() => {
    let alive = true;
    let mounted: MountedTerminal | null = null;
    let detach = () => {};
    void terminalStyles();
    import('./xterm-runtime')
      .then(({ mountTerminal }) => mountTerminal(screen.current!, output.capacity))
      .then((t) => {
        if (!alive) return t.dispose();
        mounted = t;
        detach = output.attach((chunk, done) => t.write(chunk, done));
        setTerminal(t);
      })
      .catch((error: unknown) => {
        if (alive) setFailure(error instanceof Error ? error.message : String(error));
      });
    return () => {
      alive = false;
      detach();
      mounted?.dispose();
    };
  }, [output]);

  useEffect(() => output.onBatch((lines) => mirror.current && appendToMirror(mirror.current, lines)), [output]);

  return (
    <div class="term">
      <div class="term-bar">
        <p class="term-status" role="status" data-state={status.kind}>
          <span class="term-dot" aria-hidden="true" />
          {describeStatus(status)}
        </p>
        <SearchBox terminal={terminal} label={`Search ${label.toLowerCase()}`} />
      </div>
      <div class="term-log" role="log" aria-label={label}>
        <div class="term-screen" ref={screen} aria-hidden="true" />
        <ol class="term-mirror" ref={mirror} />
      </div>
      {failure && (
        <p class="error" role="alert">
          The terminal could not be loaded ({failure}): reload the page.
        </p>
      )}
    </div>
  );
}

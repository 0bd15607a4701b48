/**
 * The Console page: the controller's own console (every controller command, as in `svc cli`)
 * in a terminal, with the Command field below it: Enter runs, ↑/↓ walk the history, Tab
 * completes from the controller. Events the controller publishes are shown dim unless the
 * operator turns them off. Loaded when first shown (console.tsx).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { CommandLine } from '../../terminal/command-line';
import { TerminalOutput } from '../../terminal/output';
import { Terminal, terminalStyles } from '../../terminal/terminal';
import type { SocketStatus } from '../../terminal/ticket-socket';
import { loadStylesheet } from '../../stylesheet';
import consoleCss from './console.css' with { type: 'file' };
import { ControllerConsole } from './stream';

export const ready = Promise.all([terminalStyles(), loadStylesheet(consoleCss)]);

export function Page() {
  const output = useMemo(() => new TerminalOutput(), []);
  const [status, setStatus] = useState<SocketStatus>({ kind: 'connecting' });
  const [showEvents, setShowEvents] = useState(true);
  const events = useRef(showEvents);
  events.current = showEvents;
  const stream = useRef<ControllerConsole | null>(null);

  useEffect(() => {
    const controller = new ControllerConsole(output, setStatus, () => events.current);
    stream.current = controller;
    return () => {
      stream.current = null;
      controller.close();
    };
  }, [output]);

  return (
    <section class="console-page">
      <div class="console-head">
        <h1>Console</h1>
        <label class="console-toggle">
          <input type="checkbox" checked={showEvents} onChange={(e) => setShowEvents(e.currentTarget.checked)} />
          Show events
        </label>
      </div>
      <Terminal output={output} label="Console output" status={status} />
      <CommandLine
        historyKey="svc.console.controller"
        placeholder="help"
        onRun={(command) => stream.current?.execute(command) ?? false}
        complete={(input) => stream.current?.complete(input) ?? Promise.resolve([])}
      />
    </section>
  );
}

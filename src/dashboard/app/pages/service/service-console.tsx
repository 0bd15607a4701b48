/**
 * A service's console: its process's output (GET /api/services/{name}/console, one stdout line
 * a frame, ANSI colours kept) in the terminal, and the Command field's lines written to its
 * stdin. The socket closes when the process ends and is refused while there is none; it comes
 * back by itself, and at once when the page hears the service start again (`wake`).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { paint, plainText } from '../../terminal/ansi';
import { CommandLine } from '../../terminal/command-line';
import { TerminalOutput } from '../../terminal/output';
import { Terminal } from '../../terminal/terminal';
import { openTicketSocket, type SocketStatus, type TicketSocket } from '../../terminal/ticket-socket';
import { servicePath } from './model';

export function ServiceConsole({ name, wake }: { name: string; wake: number }) {
  const output = useMemo(() => new TerminalOutput(), [name]);
  const [status, setStatus] = useState<SocketStatus>({ kind: 'connecting' });
  const socket = useRef<TicketSocket | null>(null);

  /** A new connection's note is written with its first line (a socket refused at once writes none). */
  const announce = useRef(false);
  const noteAttached = () => {
    if (!announce.current) return;
    announce.current = false;
    output.line(paint.dim(`— attached to ${plainText(name)} —`));
  };

  useEffect(() => {
    const opened = openTicketSocket({
      path: servicePath(name, '/console'),
      onOpen: () => {
        announce.current = true;
      },
      onMessage: (line) => {
        noteAttached();
        output.line(line);
      },
      onStatus: setStatus,
    });
    socket.current = opened;
    return () => {
      socket.current = null;
      opened.close();
    };
  }, [name, output]);

  useEffect(() => {
    if (wake > 0) socket.current?.reconnectNow();
  }, [wake]);

  const run = (command: string) => {
    if (!socket.current?.send(command)) return false;
    noteAttached();
    output.line(paint.dim(`> ${plainText(command)}`));
    return true;
  };

  return (
    <section class="service-panel service-console" aria-labelledby="service-console-title">
      <h2 id="service-console-title">Console</h2>
      <Terminal output={output} label="Console output" status={status} />
      <CommandLine historyKey={`svc.console.service.${name}`} placeholder="list" onRun={run} />
    </section>
  );
}

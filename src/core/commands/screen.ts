import type { Kernel } from '../../kernel';

/** Lines of a service's recent output sent on attach, so a screen does not start blank. */
export const SCREEN_BACKLOG = 50;

export interface ScreenSink {
  line(text: string): void;
  /** The service's process ended while attached. */
  ended(reason: string): void;
}

/**
 * Attaches a console to a service's output: its recent lines first, then each new line,
 * until `stop()` or the process ends. Returns the reason instead when there is nothing to
 * attach to (unknown service, no running process).
 */
export function attachScreen(kernel: Pick<Kernel, 'services' | 'manager'>, service: string, sink: ScreenSink): { stop: () => void } | string {
  if (!kernel.services.get(service)) return `service ${service} does not exist`;
  const handle = kernel.manager.handleOf(service);
  if (!handle?.isAlive()) return `service ${service} has no running process`;
  for (const line of handle.lastLines(SCREEN_BACKLOG)) sink.line(line);
  let attached = true;
  const stopLines = handle.onLine((text) => sink.line(text));
  const stop = () => {
    attached = false;
    stopLines();
  };
  void handle.exited.then(() => {
    if (!attached) return;
    stop();
    sink.ended(`${service} stopped`);
  });
  return { stop };
}

/** Writes one operator line to the attached service; the reason when it cannot. */
export function screenInput(kernel: Pick<Kernel, 'manager'>, service: string, text: string): string | null {
  const line = text.trim();
  if (line === '') return null;
  if (/[\r\n]/.test(line)) return 'one line at a time: the input held a line break';
  try {
    kernel.manager.exec(service, line);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

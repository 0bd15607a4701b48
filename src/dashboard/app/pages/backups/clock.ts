import { useEffect, useState } from 'preact/hooks';

/** The time now, renewed every `everyMs` while `running` (a running backup's elapsed time ages with it). */
export function useNow(everyMs: number, running = true): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs, running]);
  return now;
}

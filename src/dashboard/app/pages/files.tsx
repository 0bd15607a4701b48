/**
 * The Files page (issue 41), loaded with import() the first time it is visited: its code, its
 * styles and TanStack Virtual stay out of what every page of the dashboard loads first
 * (CodeMirror is a later chunk again, loaded when a file is first opened). The page is in
 * files/page.tsx.
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

let loading: Promise<FunctionComponent> | undefined;

export function Files() {
  const [Page, setPage] = useState<FunctionComponent | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    loading ??= import('./files/page').then(async (m) => {
      await m.ready;
      return m.FilesPage;
    });
    loading.then(
      (page) => live && setPage(() => page),
      (error: Error) => {
        loading = undefined; // the next attempt asks again
        if (live) setProblem(error.message);
      },
    );
    return () => {
      live = false;
    };
  }, [attempt]);
  if (Page) return <Page />;
  return (
    <section>
      <h1>Files</h1>
      {problem ? (
        <div role="alert">
          <p class="error">The Files page could not be loaded: {problem}</p>
          <button
            type="button"
            onClick={() => {
              setProblem(null);
              setAttempt((n) => n + 1);
            }}
          >
            Try again
          </button>
        </div>
      ) : (
        <p>Loading…</p>
      )}
    </section>
  );
}

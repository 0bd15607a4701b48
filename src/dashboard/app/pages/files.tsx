/**
 * The Files page (issue 41), loaded with import() the first time it is visited: its code and
 * TanStack Virtual stay out of the bundle every page of the dashboard loads first (CodeMirror
 * is a later chunk again, loaded when a file is first opened). The page is in files/page.tsx.
 * Its styles are imported here: Bun puts CSS into the first page's stylesheet in any case.
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './files/files.css';

let loading: Promise<FunctionComponent> | undefined;

export function Files() {
  const [Page, setPage] = useState<FunctionComponent | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    loading ??= import('./files/page').then((m) => m.FilesPage);
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
    <section class="fm-page">
      <h1>Files</h1>
      {problem ? (
        <div class="fm-refusal" role="alert">
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

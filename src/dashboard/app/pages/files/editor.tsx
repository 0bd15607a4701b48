/**
 * A file opened from the list: text in CodeMirror (codemirror.ts, loaded on first use), saved
 * through the API with Save or Ctrl-S; a binary file or one too large for the editor is said
 * to be so, with its download offered. Unsaved changes are kept from a reload by the browser's
 * own "leave page?" question, and from Close by one of the page's.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { Link } from 'wouter-preact';
import type { EditorHandle } from './codemirror';
import { formatBytes } from './format';
import { baseName, pageHref, parentOf, type ScopeName } from './paths';
import { downloadFile, listKey, MAX_TEXT_BYTES, openFile, type Listing, type Opened } from './requests';
import { saveText } from './save';

type Loaded = { phase: 'loading' } | { phase: 'failed'; message: string } | ({ phase: 'opened' } & Opened);

interface Props {
  scope: ScopeName;
  path: string;
  readOnly: string | null;
}

export function EditorView({ scope, path, readOnly }: Props) {
  const name = baseName(path);
  const [loaded, setLoaded] = useState<Loaded>({ phase: 'loading' });
  const [editorReady, setEditorReady] = useState(false);
  const [dirty, setDirty] = useState(false);
  const [saving, setSaving] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [closing, setClosing] = useState(false);
  const host = useRef<HTMLDivElement>(null);
  const editor = useRef<EditorHandle | null>(null);
  const saved = useRef('');
  const queries = useQueryClient();

  useEffect(() => {
    let live = true;
    // The size the listing showed, when the folder was listed: a file too large is not fetched.
    const listed = queries.getQueryData<Listing>(listKey(scope, parentOf(path)))?.entries.find((e) => e.path === path);
    openFile(scope, path, listed?.size ?? null).then(
      (opened) => live && setLoaded({ phase: 'opened', ...opened }),
      (error: Error) => live && setLoaded({ phase: 'failed', message: error.message }),
    );
    return () => {
      live = false;
    };
  }, [scope, path, queries]);

  const save = async () => {
    const handle = editor.current;
    if (!handle || readOnly || saving) return;
    const text = handle.text();
    setSaving(true);
    setProblem(null);
    try {
      const bytes = await saveText(scope, path, text);
      saved.current = text;
      setDirty(handle.text() !== text);
      setStatus(`Saved ${formatBytes(bytes)} at ${new Date().toLocaleTimeString()}.`);
      void queries.invalidateQueries({ queryKey: ['files', scope, parentOf(path)] });
    } catch (error) {
      setProblem(`Not saved: ${(error as Error).message}`);
    } finally {
      setSaving(false);
    }
  };
  // The editor's key binding calls the save of the latest render.
  const saveRef = useRef(save);
  saveRef.current = save;

  const text = loaded.phase === 'opened' && loaded.kind === 'text' ? loaded.content : null;
  useEffect(() => {
    if (text === null || !host.current) return;
    let handle: EditorHandle | null = null;
    let live = true;
    saved.current = text;
    import('./codemirror').then(
      ({ mountEditor }) => {
        if (!live || !host.current) return;
        handle = mountEditor(host.current, {
          doc: text,
          fileName: name,
          readOnly: readOnly !== null,
          onChange: () => setDirty(true), // compared with the saved text only at a save: a keystroke stays cheap in a large file
          onSave: () => void saveRef.current(),
        });
        editor.current = handle;
        setEditorReady(true);
      },
      (error: Error) => live && setProblem(`The editor could not be loaded: ${error.message}`),
    );
    return () => {
      live = false;
      handle?.destroy();
      editor.current = null;
    };
  }, [text, name, readOnly]);

  useEffect(() => {
    if (!dirty) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener('beforeunload', ask);
    return () => removeEventListener('beforeunload', ask);
  }, [dirty]);

  const back = pageHref({ scope, path: parentOf(path) });
  const download = () => downloadFile(scope, path, name).catch((error: Error) => setProblem(`Not downloaded: ${error.message}`));
  return (
    <section class="fm-editor" aria-label={`Editing ${name}`}>
      <div class="fm-editor-bar">
        <h2 title={path}>{name}</h2>
        {dirty && <span class="fm-dirty">Unsaved changes</span>}
        <div class="fm-editor-buttons">
          {text !== null && !readOnly && (
            <button type="button" disabled={!editorReady || saving || !dirty} onClick={() => void save()}>
              {saving ? 'Saving…' : 'Save'}
            </button>
          )}
          <button type="button" class="fm-secondary" onClick={() => void download()}>
            Download
          </button>
          {dirty ? (
            <button type="button" class="fm-secondary" onClick={() => setClosing(true)}>
              Close
            </button>
          ) : (
            <Link href={back} class="fm-button-link">
              Close
            </Link>
          )}
        </div>
      </div>
      {closing && dirty && (
        <p class="fm-warning" role="alert">
          Close without saving? <Link href={back}>Discard changes</Link>{' '}
          <button type="button" class="link" onClick={() => setClosing(false)}>
            Keep editing
          </button>
        </p>
      )}
      {readOnly && <p class="notice">{readOnly}</p>}
      {status && !dirty && (
        <p class="notice" role="status">
          {status}
        </p>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {loaded.phase === 'loading' && <p>Opening {name}…</p>}
      {loaded.phase === 'failed' && (
        <p class="error" role="alert">
          {name} could not be opened: {loaded.message}
        </p>
      )}
      {loaded.phase === 'opened' && loaded.kind === 'binary' && (
        <p class="fm-binary" role="status">
          {loaded.size !== null && loaded.size > MAX_TEXT_BYTES
            ? `${name} is ${formatBytes(loaded.size)}: too large to open here (the editor opens files up to ${formatBytes(MAX_TEXT_BYTES)}). Download it instead.`
            : `${name} is not a text file${loaded.size !== null ? ` (${formatBytes(loaded.size)})` : ''}: it cannot be edited here. Download it instead.`}
        </p>
      )}
      {text !== null && (
        <>
          {!editorReady && <p>Loading the editor…</p>}
          <div class="fm-code" ref={host} />
        </>
      )}
    </section>
  );
}

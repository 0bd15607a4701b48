/**
 * The Files page itself (files.tsx loads it on first use): the roots of the files API
 * (templates, services, groups), their folders however large (virtualised), search by name,
 * text files in CodeMirror (loaded on first use too), uploads of files and whole folders with
 * per-file progress, new folders and files, deletion with a confirmation. Where it is lives in
 * the address (?scope=&path= for a folder, ?scope=&file= for an open file): Back, reload and
 * shared links land there again.
 */
import { useSearch } from 'wouter-preact';
import { Breadcrumbs } from './breadcrumbs';
import { EditorView } from './editor';
import { FolderView } from './folder';
import { parentOf, scopeInfo } from './paths';
import { Roots } from './roots';
import { loadStylesheet } from '../../stylesheet';
import { UploadPanel, useUploads } from './uploads';
import filesCss from './files.css' with { type: 'file' };

/** Resolves when the page's styles are in: files.tsx shows the page only then (no unstyled flash). */
export const ready = loadStylesheet(filesCss as string);

export function FilesPage() {
  const query = new URLSearchParams(useSearch());
  const asked = query.get('scope');
  const scope = scopeInfo(asked);
  const file = query.get('file') || null;
  const path = file ? parentOf(file) : (query.get('path') ?? '').replace(/^\/+|\/+$/g, '');
  // Uploads live here, above the folder shown: they go on while the operator browses.
  const uploads = useUploads();
  return (
    <section class="fm-page">
      <h1>Files</h1>
      <Breadcrumbs scope={scope?.name ?? null} path={path} file={file} />
      {asked !== null && !scope && (
        <p class="error" role="alert">
          There is no root called “{asked}”: choose one below.
        </p>
      )}
      {!scope && <Roots />}
      {scope && file && <EditorView key={`${scope.name}\n${file}`} scope={scope.name} path={file} readOnly={scope.readOnly} />}
      {scope && !file && <FolderView key={`${scope.name}\n${path}`} scope={scope.name} path={path} uploads={uploads} />}
      <UploadPanel uploads={uploads} />
    </section>
  );
}

/**
 * One folder of a root: its entries (entry-list.tsx), searched by name; New folder / New file;
 * uploads from the pickers or dropped files and folders; Delete with a confirmation. Every
 * refusal of the API is shown in its own words.
 */
import { useMemo, useState } from 'preact/hooks';
import { useQuery } from '@tanstack/preact-query';
import { Link, useLocation } from 'wouter-preact';
import { CreateForm } from './create-form';
import { DeleteDialog } from './delete-dialog';
import { EntryList } from './entry-list';
import { droppedEntries, fromEntries, type Gathered } from './gather';
import { pageHref, parentOf, scopeInfo, type ScopeName } from './paths';
import { downloadFile, listFolder, listKey, type FileEntry } from './requests';
import { Toolbar } from './toolbar';
import type { Uploads } from './uploads';

export function FolderView({ scope, path, uploads }: { scope: ScopeName; path: string; uploads: Uploads }) {
  const writable = scopeInfo(scope)!.readOnly === null;
  const listing = useQuery({ queryKey: listKey(scope, path), queryFn: () => listFolder(scope, path) });
  const [search, setSearch] = useState('');
  const [creating, setCreating] = useState<'folder' | 'file' | null>(null);
  const [deleting, setDeleting] = useState<FileEntry | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);
  const [, navigate] = useLocation();

  const entries = listing.data?.entries;
  const needle = search.trim().toLowerCase();
  const shown = useMemo(() => (needle ? (entries ?? []).filter((e) => e.name.toLowerCase().includes(needle)) : (entries ?? [])), [entries, needle]);
  const names = useMemo(() => new Set((entries ?? []).map((e) => e.name)), [entries]);
  const folders = useMemo(() => new Set((entries ?? []).filter((e) => e.isDirectory).map((e) => e.name)), [entries]);

  const upload = (gathered: Gathered) => {
    setProblem(null);
    uploads.start(scope, path, gathered, folders);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const transfer = event.dataTransfer;
    if (!writable || !transfer) return;
    // Entries are taken now: the transfer is emptied once this handler returns.
    const entries = droppedEntries(transfer);
    const files = [...transfer.files];
    const gathering = entries ? fromEntries(entries) : Promise.resolve<Gathered>({ sources: files.map((file) => ({ rel: file.name, file })), folders: [] });
    gathering.then(
      (gathered) => (gathered.sources.length || gathered.folders.length ? upload(gathered) : undefined),
      (error: Error) => setProblem(`The dropped files could not be read: ${error.message}`),
    );
  };
  const dragOver = (event: DragEvent) => {
    if (!writable || !event.dataTransfer?.types.includes('Files')) return;
    event.preventDefault(); // accept the drop
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const leave = (event: DragEvent) => {
    // Leaving for one of its own children is no leaving.
    if (!(event.currentTarget as Node).contains(event.relatedTarget as Node | null)) setDragging(false);
  };
  const download = (entry: FileEntry) => downloadFile(scope, entry.path, entry.name).catch((error: Error) => setProblem(`${entry.name} was not downloaded: ${error.message}`));

  return (
    <div class={`fm-folder${dragging ? ' fm-dragging' : ''}`} onDragOver={dragOver} onDragLeave={leave} onDrop={drop}>
      <Toolbar search={search} onSearch={setSearch} writable={writable} onCreate={setCreating} onUpload={upload} />
      {!writable && <p class="notice">{scopeInfo(scope)!.readOnly}</p>}
      {creating && (
        <CreateForm
          key={creating}
          kind={creating}
          scope={scope}
          dir={path}
          taken={names}
          onCancel={() => setCreating(null)}
          onCreated={(created) => {
            setCreating(null);
            if (creating === 'file') navigate(pageHref({ scope, file: created }));
          }}
        />
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {listing.isPending && <p>Loading…</p>}
      {listing.isError && (
        <div class="fm-refusal" role="alert">
          <p class="error">This folder could not be listed: {listing.error.message}</p>
          <Link href={path ? pageHref({ scope, path: parentOf(path) }) : pageHref({})}>Go up</Link>
        </div>
      )}
      {entries && (
        <>
          <p class="notice fm-count" role="status">
            {needle ? `${shown.length} of ${entries.length} entries match “${search.trim()}”` : `${entries.length} ${entries.length === 1 ? 'entry' : 'entries'}`}
            {writable ? ' · drop files or folders here to upload them' : ''}
          </p>
          {shown.length > 0 ? (
            <EntryList scope={scope} entries={shown} resetKey={`${path}\n${needle}`} writable={writable} onDownload={download} onDelete={setDeleting} />
          ) : (
            <p class="fm-empty">{needle ? `No name in this folder contains “${search.trim()}”.` : 'This folder is empty.'}</p>
          )}
        </>
      )}
      {deleting && <DeleteDialog scope={scope} entry={deleting} onClose={() => setDeleting(null)} />}
    </div>
  );
}

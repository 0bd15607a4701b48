/**
 * New folder / New file in the folder shown: a name, checked here first (nameProblem, and
 * not taken in the listing: a PUT would replace a file of that name), then the API's answer.
 * A new file is empty and opens in the editor.
 */
import { useState } from 'preact/hooks';
import { useQueryClient } from '@tanstack/preact-query';
import { joinPath, nameProblem, type ScopeName } from './paths';
import { makeFolder, writeText } from './requests';

interface Props {
  kind: 'folder' | 'file';
  scope: ScopeName;
  dir: string;
  taken: ReadonlySet<string>;
  onCreated: (path: string) => void;
  onCancel: () => void;
}

export function CreateForm({ kind, scope, dir, taken, onCreated, onCancel }: Props) {
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const queries = useQueryClient();
  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = name.trim();
    const local = nameProblem(trimmed) ?? (taken.has(trimmed) ? `${trimmed} already exists here.` : null);
    setProblem(local);
    if (local) return;
    const path = joinPath(dir, trimmed);
    setBusy(true);
    try {
      if (kind === 'folder') await makeFolder(scope, path);
      else await writeText(scope, path, '');
      await queries.invalidateQueries({ queryKey: ['files', scope, dir] });
      onCreated(path);
    } catch (error) {
      setProblem((error as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const label = kind === 'folder' ? 'New folder name' : 'New file name';
  return (
    <form class="fm-create" onSubmit={submit}>
      <label>
        {label}
        <input value={name} autoFocus onInput={(e) => setName((e.target as HTMLInputElement).value)} placeholder={kind === 'folder' ? 'plugins' : 'server.properties'} />
      </label>
      <div class="fm-create-buttons">
        <button type="submit" disabled={busy}>
          Create {kind}
        </button>
        <button type="button" class="fm-secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </form>
  );
}

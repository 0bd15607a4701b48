/**
 * The folder's tools: search by name (over the listing, in the browser: the API has no
 * search), and in a writable root New folder, New file, Upload files and Upload folder.
 */
import { useRef } from 'preact/hooks';
import { fromInput, type Gathered } from './gather';

interface Props {
  search: string;
  onSearch: (text: string) => void;
  writable: boolean;
  onCreate: (kind: 'folder' | 'file') => void;
  onUpload: (gathered: Gathered) => void;
}

export function Toolbar({ search, onSearch, writable, onCreate, onUpload }: Props) {
  const files = useRef<HTMLInputElement>(null);
  const folder = useRef<HTMLInputElement>(null);
  const picked = (event: Event) => {
    const input = event.target as HTMLInputElement;
    const gathered = fromInput(input.files);
    input.value = ''; // choosing the same files again is a new choice
    if (gathered.sources.length > 0) onUpload(gathered);
  };
  return (
    <div class="fm-toolbar">
      <input type="search" class="fm-search" value={search} onInput={(e) => onSearch((e.target as HTMLInputElement).value)} placeholder="Search by name" aria-label="Search by name in this folder" />
      {writable && (
        <div class="fm-tools">
          <button type="button" class="fm-secondary" onClick={() => onCreate('folder')}>
            New folder
          </button>
          <button type="button" class="fm-secondary" onClick={() => onCreate('file')}>
            New file
          </button>
          <button type="button" class="fm-secondary" onClick={() => files.current?.click()}>
            Upload files
          </button>
          <button type="button" class="fm-secondary" onClick={() => folder.current?.click()}>
            Upload folder
          </button>
          <input ref={files} type="file" multiple hidden aria-label="Files to upload" onChange={picked} />
          {/* webkitdirectory (set as a property: JSX has no such attribute) picks a whole folder. */}
          <input
            ref={(input) => {
              folder.current = input;
              if (input) input.webkitdirectory = true;
            }}
            type="file"
            multiple
            hidden
            aria-label="Folder to upload"
            onChange={picked}
          />
        </div>
      )}
    </div>
  );
}

/**
 * Paths of the Files page. A path is relative to its scope's root, segments joined by "/",
 * "" for the root itself: the form the files API lists entries in. In a URL each segment is
 * percent-encoded on its own (the API decodes a path exactly once), so a name holding "%",
 * "#", "?" or spaces reaches the API as it is.
 */

export type ScopeName = 'templates' | 'services' | 'groups';

export interface ScopeInfo {
  name: ScopeName;
  title: string;
  about: string;
  /** Why the scope takes no writes, or null when it does. */
  readOnly: string | null;
}

/** The roots the files API offers (spec, "Files"), in the order the page shows them. */
export const SCOPES: readonly ScopeInfo[] = [
  { name: 'templates', title: 'Templates', about: 'Files copied into a group’s services when they are prepared.', readOnly: null },
  { name: 'services', title: 'Services', about: 'The working folders of the services.', readOnly: null },
  {
    name: 'groups',
    title: 'Groups',
    about: 'The group configurations, read-only here.',
    readOnly: 'The groups folder is read-only: change a group on the Groups page.',
  },
];

export function scopeInfo(name: string | null): ScopeInfo | undefined {
  return SCOPES.find((s) => s.name === name);
}

export const joinPath = (dir: string, name: string): string => (dir ? `${dir}/${name}` : name);

export function parentOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

export const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** The segments of a path; none for the root. */
export const segmentsOf = (path: string): string[] => (path ? path.split('/') : []);

/** The API's URL of a scope's path (the scope root without a trailing slash). */
export function apiUrl(scope: ScopeName, path: string): string {
  const encoded = segmentsOf(path).map(encodeURIComponent).join('/');
  return `/api/files/${scope}${encoded ? `/${encoded}` : ''}`;
}

/**
 * The page's own address for a place: the roots (no scope), a folder, or a file open in the
 * editor. Kept in the query string so Back, reload and a shared link land on the same place.
 */
export function pageHref(place: { scope?: ScopeName; path?: string; file?: string }): string {
  const query = new URLSearchParams();
  if (place.scope) query.set('scope', place.scope);
  if (place.file) query.set('file', place.file);
  else if (place.path) query.set('path', place.path);
  const text = query.toString();
  return text ? `/files?${text}` : '/files';
}

/**
 * Why a name typed for a new file or folder cannot be one, or null when it can. One segment:
 * the API refuses separators, dot segments and control characters too, and says so; this
 * catches them before a request, in the same words for every case.
 */
export function nameProblem(name: string): string | null {
  if (name.trim() === '') return 'Type a name.';
  if (name === '.' || name === '..') return 'A name cannot be "." or "..".';
  if (/[/\\]/.test(name)) return 'A name cannot hold "/" or "\\": create one folder at a time.';
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'A name cannot hold control characters.';
  return null;
}

/** Whether a work-dir path (relative, POSIX separators) is kept out of a deploy back. */
export type ExcludeMatcher = (rel: string) => boolean;

/**
 * Compiles a group's `deployExcludes`. A pattern excludes a path when it matches:
 * - the path itself or any leading folder of it, so `logs` and `world/logs` exclude everything
 *   under those folders, and `plugins/*.jar` excludes the jars directly in `plugins/`;
 * - for a pattern without `/`, also any single segment, so `*.tmp` excludes `a/b/c.tmp` and
 *   `cache` excludes `plugins/x/cache/...` too.
 *
 * Patterns are `Bun.Glob` syntax, whose `*` never crosses a `/` (`**` does). A trailing `/` and
 * a leading `./` are ignored; a leading `/` anchors a plain name to the work dir's top level
 * (`/cache` excludes `cache/` but not `plugins/x/cache/`), as in `.gitignore`.
 */
export function excludeMatcher(patterns: readonly string[]): ExcludeMatcher {
  const anyDepth: Bun.Glob[] = [];
  const fromTop: Bun.Glob[] = [];
  for (const raw of patterns) {
    let pattern = raw.trim().replace(/\/+$/, '');
    while (pattern.startsWith('./')) pattern = pattern.slice(2);
    const anchored = pattern.startsWith('/');
    pattern = pattern.replace(/^\/+/, '');
    if (pattern === '') continue;
    (anchored || pattern.includes('/') ? fromTop : anyDepth).push(new Bun.Glob(pattern));
  }
  if (anyDepth.length === 0 && fromTop.length === 0) return () => false;

  return (rel) => {
    const segments = rel.split('/');
    for (const segment of segments) {
      if (anyDepth.some((glob) => glob.match(segment))) return true;
    }
    if (fromTop.length === 0) return false;
    let prefix = '';
    for (const segment of segments) {
      prefix = prefix === '' ? segment : `${prefix}/${segment}`;
      if (fromTop.some((glob) => glob.match(prefix))) return true;
    }
    return false;
  };
}

/** Where the page is: Files › a root › its folders (› the open file), each but the last a link. */
import { Link } from 'wouter-preact';
import { joinPath, pageHref, scopeInfo, segmentsOf, type ScopeName } from './paths';

export function Breadcrumbs({ scope, path, file }: { scope: ScopeName | null; path: string; file: string | null }) {
  const crumbs: { label: string; href: string }[] = [{ label: 'All roots', href: pageHref({}) }];
  if (scope) {
    crumbs.push({ label: scopeInfo(scope)!.title, href: pageHref({ scope }) });
    let at = '';
    for (const segment of segmentsOf(path)) {
      at = joinPath(at, segment);
      crumbs.push({ label: segment, href: pageHref({ scope, path: at }) });
    }
    if (file) crumbs.push({ label: segmentsOf(file).pop()!, href: pageHref({ scope, file }) });
  }
  return (
    <nav class="fm-crumbs" aria-label="Folder path">
      <ol>
        {crumbs.map((crumb, i) => (
          <li key={crumb.href}>
            {i === crumbs.length - 1 ? (
              <span aria-current="location">{crumb.label}</span>
            ) : (
              <Link href={crumb.href}>{crumb.label}</Link>
            )}
          </li>
        ))}
      </ol>
    </nav>
  );
}

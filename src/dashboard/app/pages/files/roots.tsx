/** The roots the files API offers, to start browsing from. */
import { Link } from 'wouter-preact';
import { Icon } from './icons';
import { pageHref, SCOPES } from './paths';

export function Roots() {
  return (
    <ul class="fm-roots" aria-label="Roots">
      {SCOPES.map((scope) => (
        <li key={scope.name}>
          <Link href={pageHref({ scope: scope.name })}>
            <Icon name="folder" />
            <strong>{scope.title}</strong>
            {scope.readOnly && <span class="fm-tag">read-only</span>}
          </Link>
          <p class="notice">{scope.about}</p>
        </li>
      ))}
    </ul>
  );
}

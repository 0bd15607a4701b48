import type { ComponentChildren } from 'preact';
import { Link, useLocation } from 'wouter-preact';
import { signOut } from './api';

/** Every page of the dashboard, in the navigation's order: the link's accessible name and its path. */
export const PAGES = [
  ['Overview', '/'],
  ['Services', '/services'],
  ['Groups', '/groups'],
  ['Dedicated', '/dedicated'],
  ['Nodes', '/nodes'],
  ['Console', '/console'],
  ['Files', '/files'],
  ['Plugins', '/plugins'],
  ['Audit', '/audit'],
  ['Doctor', '/doctor'],
  ['Performance', '/performance'],
  ['Stress', '/stress'],
  ['Settings', '/settings'],
  ['Profile', '/profile'],
] as const;

export function Shell({ children }: { children: ComponentChildren }) {
  const [location] = useLocation();
  return (
    <div class="shell">
      <header>
        <strong>svc</strong>
        <button type="button" class="link" onClick={() => signOut('You signed out.')}>
          Sign out
        </button>
      </header>
      <nav aria-label="Pages">
        {PAGES.map(([name, path]) => (
          <Link key={path} href={path} aria-current={location === path ? 'page' : undefined}>
            {name}
          </Link>
        ))}
      </nav>
      <main>{children}</main>
    </div>
  );
}

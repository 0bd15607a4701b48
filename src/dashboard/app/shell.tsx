import type { ComponentChildren } from 'preact';
import { Link, useLocation } from 'wouter-preact';
import { api, signInKind, signOut } from './api';
import { pageModuleLoaded, usePageAccess } from './access';

/** Every page of the dashboard, in the navigation's order: the link's accessible name and its path. */
export const PAGES = [
  ['Overview', '/'],
  ['Network', '/network'],
  ['Services', '/services'],
  ['Groups', '/groups'],
  ['Dedicated', '/dedicated'],
  ['Nodes', '/nodes'],
  ['Console', '/console'],
  ['Files', '/files'],
  ['Plugins', '/plugins'],
  ['Players', '/players'],
  ['Permissions', '/permissions'],
  ['Punishments', '/punishments'],
  ['Backups', '/backups'],
  ['Resource packs', '/resource-packs'],
  ['Display', '/display'],
  ['Scaling', '/scaling'],
  ['Timeline', '/timeline'],
  ['Audit', '/audit'],
  ['Doctor', '/doctor'],
  ['Performance', '/performance'],
  ['Stress', '/stress'],
  ['Settings', '/settings'],
  ['Profile', '/profile'],
] as const;

/** A game account's session is revoked at the controller too; an API token stays valid (it is the operator's). */
async function endSession(): Promise<void> {
  if (signInKind() !== 'session') return;
  try {
    await api('/api/auth/logout', { method: 'POST' });
  } catch {
    // Already ended: signing out here is all that is left.
  }
}

export function Shell({ children }: { children: ComponentChildren }) {
  const [location] = useLocation();
  const mayOpen = usePageAccess();
  return (
    <div class="shell">
      <header>
        <strong>svc</strong>
        <button type="button" class="link" onClick={() => void endSession().finally(() => signOut('You signed out.'))}>
          Sign out
        </button>
      </header>
      <nav aria-label="Pages">
        {PAGES.filter(([name]) => pageModuleLoaded(name) && (mayOpen?.(name) ?? false)).map(([name, path]) => (
          <Link key={path} href={path} aria-current={location === path ? 'page' : undefined}>
            {name}
          </Link>
        ))}
      </nav>
      <main>{children}</main>
    </div>
  );
}

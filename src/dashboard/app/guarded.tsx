import type { ComponentChildren } from 'preact';
import { pageModuleLoaded, usePageAccess, PAGE_MODULES, PAGE_NODES } from './access';

/** A page a session may not open says so instead of loading (nothing is asked of the API for it). */
export function Guarded({ page, children }: { page: string; children: ComponentChildren }) {
  const mayOpen = usePageAccess();
  if (!pageModuleLoaded(page)) {
    return (
      <section>
        <h1>{page}</h1>
        <p role="alert">The {PAGE_MODULES[page]} module does not run on this controller: install it (POST /api/modules/install/{PAGE_MODULES[page]}) and restart the controller.</p>
      </section>
    );
  }
  if (mayOpen === undefined) return <p>Loading…</p>;
  if (mayOpen(page)) return <>{children}</>;
  return (
    <section>
      <h1>{page}</h1>
      <p role="alert">Your account may not open this page: it needs the permission {PAGE_NODES[page]}. Ask an admin of this network for it.</p>
    </section>
  );
}

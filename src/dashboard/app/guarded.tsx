import type { ComponentChildren } from 'preact';
import { usePageAccess, PAGE_NODES } from './access';

/** A page a session may not open says so instead of loading (nothing is asked of the API for it). */
export function Guarded({ page, children }: { page: string; children: ComponentChildren }) {
  const mayOpen = usePageAccess();
  if (mayOpen === undefined) return <p>Loading…</p>;
  if (mayOpen(page)) return <>{children}</>;
  return (
    <section>
      <h1>{page}</h1>
      <p role="alert">Your account may not open this page: it needs the permission {PAGE_NODES[page]}. Ask an admin of this network for it.</p>
    </section>
  );
}

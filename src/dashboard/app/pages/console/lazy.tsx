/**
 * A page loaded when it is first shown (a dynamic import), so the first page's bundle does not
 * carry it: its module exports the component and a promise of the styles it needs, awaited
 * before it shows so nothing jumps. Used by the Console and a service's page; a failed load
 * (the controller was updated meanwhile and the chunk is gone) says to reload.
 */
import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export interface LazyModule<P> {
  Page: ComponentType<P>;
  /** Resolves when the page's stylesheets are in. */
  ready: Promise<unknown>;
}

export function lazyPage<P extends object>(load: () => Promise<LazyModule<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  let loading: Promise<ComponentType<P>> | null = null;
  return function LazyPage(props: P) {
    const [Page, setPage] = useState<ComponentType<P> | null>(() => loaded);
    const [failure, setFailure] = useState<string | null>(null);
    useEffect(() => {
      if (Page) return;
      let alive = true;
      loading ??= load().then(async (module) => {
        await module.ready;
        loaded = module.Page;
        return module.Page;
      });
      loading.then(
        (page) => alive && setPage(() => page),
        (error: unknown) => {
          loading = null; // the next visit tries again
          if (alive) setFailure(error instanceof Error ? error.message : String(error));
        },
      );
      return () => {
        alive = false;
      };
    }, [Page]);
    if (failure) {
      return (
        <p class="error" role="alert">
          This page could not be loaded ({failure}): reload the page.
        </p>
      );
    }
    if (!Page) return <p class="notice">Loading…</p>;
    return <Page {...props} />;
  };
}

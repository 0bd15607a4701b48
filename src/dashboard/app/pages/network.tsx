/** Network: the network seen as one: every online player across the proxies. Loaded when first shown (network/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Network = lazyPage(() => import('./network/page'));

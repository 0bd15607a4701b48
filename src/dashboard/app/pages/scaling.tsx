/** Scaling: the scaling module's page. Loaded when first shown (scaling/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Scaling = lazyPage(() => import('./scaling/page'));

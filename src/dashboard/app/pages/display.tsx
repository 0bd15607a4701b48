/** Display: the display module's page. Loaded when first shown (display/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Display = lazyPage(() => import('./display/page'));

/** Timeline: the network timeline. Loaded when first shown (timeline/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Timeline = lazyPage(() => import('./timeline/page'));

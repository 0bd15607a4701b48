/** A group's own page: its instances and the group actions. Loaded when first shown (group/page.tsx). */
import { lazyPage } from './console/lazy';

export const Group = lazyPage(() => import('./group/page'));

/** Players: the players module. Loaded when first shown (players/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Players = lazyPage(() => import('./players/page'));

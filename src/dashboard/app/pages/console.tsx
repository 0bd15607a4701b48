/**
 * The Console page (/console): the page itself, with xterm.js, is loaded when first shown
 * (console/page.tsx), so the first page's bundle does not carry it.
 */
import { lazyPage } from './console/lazy';

export const Console = lazyPage(() => import('./console/page'));

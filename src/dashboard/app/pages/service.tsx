/**
 * A service's own page (/services/:name): the page itself, with its terminal and chart, is
 * loaded when first shown (service/page.tsx), so the first page's bundle does not carry it.
 */
import { lazyPage } from './console/lazy';

export const Service = lazyPage(() => import('./service/page'));

/** Punishments: the punishments module. Loaded when first shown (punishments/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Punishments = lazyPage(() => import('./punishments/page'));

/** Backups: the backup module's page. Loaded when first shown (backups/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Backups = lazyPage(() => import('./backups/page'));

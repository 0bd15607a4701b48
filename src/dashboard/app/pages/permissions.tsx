/** Permissions: the perms module. Loaded when first shown (permissions/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const Permissions = lazyPage(() => import('./permissions/page'));

/** ResourcePacks: the resource packs module's page. Loaded when first shown (resource-packs/page.tsx), so the first page's bundle does not carry it. */
import { lazyPage } from './console/lazy';

export const ResourcePacks = lazyPage(() => import('./resource-packs/page'));

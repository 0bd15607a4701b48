import type { LazyModule, ModuleManifest, SvcModule } from './module';
import { AUTH_MANIFEST } from './auth/manifest';
import { BACKUP_MANIFEST } from './backup/manifest';
import { DISPLAY_MANIFEST } from './display/manifest';
import { PERMS_MANIFEST } from './perms/manifest';
import { PLAYERS_MANIFEST } from './players/manifest';
import { PUNISHMENTS_MANIFEST } from './punishments/manifest';
import { RESOURCEPACKS_MANIFEST } from './resourcepacks/manifest';
import { SCALING_MANIFEST } from './scaling/manifest';

function lazy(manifest: ModuleManifest, load: () => Promise<SvcModule>): LazyModule {
  return { ...manifest, load };
}

/**
 * The modules compiled into this binary, in start order. Adding a module is adding its folder
 * under src/modules/ and one line here; core never imports a module otherwise. Each module's
 * code is a separate dynamic import, evaluated only when that module is installed.
 */
export const BUILTIN_MODULES: readonly LazyModule[] = [
  lazy(PLAYERS_MANIFEST, async () => (await import('./players')).playersModule),
  lazy(DISPLAY_MANIFEST, async () => (await import('./display')).displayModule),
  lazy(PERMS_MANIFEST, async () => (await import('./perms')).permsModule),
  lazy(AUTH_MANIFEST, async () => (await import('./auth')).authModule),
  lazy(PUNISHMENTS_MANIFEST, async () => (await import('./punishments')).punishmentsModule),
  lazy(RESOURCEPACKS_MANIFEST, async () => (await import('./resourcepacks')).resourcePacksModule),
  lazy(BACKUP_MANIFEST, async () => (await import('./backup')).backupModule),
  lazy(SCALING_MANIFEST, async () => (await import('./scaling')).scalingModule),
];

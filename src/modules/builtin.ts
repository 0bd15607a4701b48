import type { SvcModule } from './module';
import { authModule } from './auth';
import { backupModule } from './backup';
import { displayModule } from './display';
import { permsModule } from './perms';
import { playersModule } from './players';
import { punishmentsModule } from './punishments';
import { resourcePacksModule } from './resourcepacks';
import { scalingModule } from './scaling';

/**
 * The modules compiled into this binary. Adding a module is adding its folder under
 * src/modules/ and one line here; core never imports a module otherwise.
 */
export const BUILTIN_MODULES: readonly SvcModule[] = [playersModule, displayModule, permsModule, authModule, punishmentsModule, resourcePacksModule, backupModule, scalingModule];

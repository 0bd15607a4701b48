/**
 * The whole event and error contract of this build: core's tables and every compiled-in
 * module's, side by side, for readers of the complete list (tests, tools). The controller does
 * not need this file: each module's manifest carries its own tables, and the registry registers
 * them at start (builtin.ts). Importing it registers every module's tables too. A module added
 * to builtin.ts is added here as well (test/architecture/module-checklist.test.ts checks it).
 */
import { ERROR_STATUS } from '../errors';
import { CORE_EVENTS } from '../events/catalogue';
import { AUTH_MODULE_ERRORS } from './auth/errors';
import { AUTH_EVENTS } from './auth/events';
import { BACKUP_ERRORS } from './backup/errors';
import { BACKUP_EVENTS } from './backup/events';
import { DISPLAY_ERRORS } from './display/errors';
import { DISPLAY_EVENTS } from './display/events';
import { PERMS_ERRORS } from './perms/errors';
import { PERMS_EVENTS } from './perms/events';
import { PLAYERS_ERRORS } from './players/errors';
import { PUNISHMENTS_ERRORS } from './punishments/errors';
import { PUNISHMENTS_EVENTS } from './punishments/events';
import { RESOURCEPACKS_ERRORS } from './resourcepacks/errors';
import { RESOURCEPACKS_EVENTS } from './resourcepacks/events';
import { SCALING_ERRORS } from './scaling/errors';
import { SCALING_EVENTS } from './scaling/events';

export type { SvcEvent } from '../events/catalogue';

/** Every event type this build publishes: core's, then each module's (which carry `module`). */
export const EVENT_CATALOGUE = {
  ...CORE_EVENTS,
  ...PERMS_EVENTS,
  ...PUNISHMENTS_EVENTS,
  ...BACKUP_EVENTS,
  ...SCALING_EVENTS,
  ...RESOURCEPACKS_EVENTS,
  ...DISPLAY_EVENTS,
  ...AUTH_EVENTS,
};

/** Every error code this build answers with its status: core's, then each module's. */
export const ERROR_CATALOGUE: Readonly<Record<string, number>> = {
  ...ERROR_STATUS,
  ...PLAYERS_ERRORS,
  ...PERMS_ERRORS,
  ...DISPLAY_ERRORS,
  ...PUNISHMENTS_ERRORS,
  ...RESOURCEPACKS_ERRORS,
  ...BACKUP_ERRORS,
  ...SCALING_ERRORS,
  ...AUTH_MODULE_ERRORS,
};

import { moduleErrors } from '../../errors';

/**
 * The permissions module's error codes. PLAYER_NOT_FOUND is the players module's code too:
 * perms answers it for a player it has no record of, with or without the players module.
 */
export const PERMS_ERRORS = moduleErrors({
  PERMISSION_GROUP_NOT_FOUND: 404,
  PERMISSION_TRACK_NOT_FOUND: 404,
  PLAYER_NOT_FOUND: 404,
});

import { moduleErrors } from '../../errors';

/** The players module's error codes (a player not online is core's: the proxy send answers it too). */
export const PLAYERS_ERRORS = moduleErrors({
  PLAYER_NOT_FOUND: 404,
});

import { moduleErrors } from '../../errors';

/** The punishments module's error codes. */
export const PUNISHMENTS_ERRORS = moduleErrors({
  PUNISHMENT_NOT_FOUND: 404,
  PUNISHMENT_ALREADY_REVOKED: 409,
  PUNISHMENT_TARGET_INVALID: 400,
  PUNISHMENT_DURATION_INVALID: 400,
});

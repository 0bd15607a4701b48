import { moduleErrors } from '../../errors';

/**
 * Error codes the auth module adds to core's (the AUTH_* codes are core's: one area of the
 * spec, several of them answered by core's HTTP layer). Passkey failures keep the existing
 * implementation's names, which its dashboard shows.
 */
export const AUTH_MODULE_ERRORS = moduleErrors({
  PASSKEY_LIMIT_REACHED: 409,
  PASSKEY_REGISTER_FAILED: 400,
  PASSKEY_LOGIN_FAILED: 401,
  PASSKEY_NOT_FOUND: 404,
});

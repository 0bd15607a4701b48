import { moduleErrors } from '../../errors';

/** The smart scaling module's error codes. */
export const SCALING_ERRORS = moduleErrors({
  SCALING_CONFIG_NOT_FOUND: 404,
});

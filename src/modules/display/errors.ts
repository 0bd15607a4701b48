import { moduleErrors } from '../../errors';

/** The display module's error codes. */
export const DISPLAY_ERRORS = moduleErrors({
  DISPLAY_CONFIG_NOT_FOUND: 404,
});

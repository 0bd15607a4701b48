import { moduleErrors } from '../../errors';

/** The resource pack module's error codes (the second spec document). */
export const RESOURCEPACKS_ERRORS = moduleErrors({
  RESOURCE_PACK_NOT_FOUND: 404,
  RESOURCE_PACK_ALREADY_EXISTS: 409,
  RESOURCE_PACK_INVALID_URL: 400,
  RESOURCE_PACK_UPLOAD_FAILED: 422,
  RESOURCE_PACK_ASSIGNMENT_NOT_FOUND: 404,
});

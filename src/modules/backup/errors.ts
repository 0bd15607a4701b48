import { moduleErrors } from '../../errors';

/** The backup module's error codes. */
export const BACKUP_ERRORS = moduleErrors({
  BACKUP_NOT_FOUND: 404,
  BACKUP_ARCHIVE_MISSING: 404,
  BACKUP_MANIFEST_MISSING: 422,
  BACKUP_IN_PROGRESS: 409,
  BACKUP_RESTORE_FAILED: 409,
  BACKUP_VERIFICATION_FAILED: 422,
  BACKUP_CONFIG_INVALID: 400,
});

/**
 * The tenant rule: how svc reads and writes inside a directory a game server controls (see
 * rule.ts). Everything outside this folder imports it from here.
 */
export { isMissing } from './errors';
export { openRealFolder, openRegular, readAll, split } from './open';
export { overrideProcFds, usesProcFds } from './proc-fds';
export { MAX_DEPTH, MAX_WALK_ENTRIES, READ_FLAGS, RefusedEntry, type FolderMode, type OpenedFile, type Refusal, type TenantFolder, type TenantTreeOptions } from './rule';
export { TenantTree } from './tree';

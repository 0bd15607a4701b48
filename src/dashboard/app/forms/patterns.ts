/**
 * The API's patterns and enumerations both pages check against, copied from the server's
 * schemas (the browser bundle does not load TypeBox or the server's modules). The browser test
 * holds each equal to its source, named next to it.
 */

/** GROUP_NAME, src/core/groups/model.ts (dedicated services use it too). */
export const NAME_PATTERN = '^[a-zA-Z0-9_-]{1,64}$';
export const NAME_MESSAGE = 'may use only letters, digits, _ and -, 1 to 64 of them';

/** The `version` field, src/core/groups/model.ts. */
export const VERSION_PATTERN = '^\\d+\\.\\d+(\\.\\d+)?(-.*)?$';
export const VERSION_MESSAGE = 'must look like 1.21 or 1.21.4 (a suffix such as -rc1 may follow)';

/** MEMORY_PATTERN, src/core/software/memory.ts. */
export const MEMORY_PATTERN = '^[1-9]\\d*[MmGg]$';
export const MEMORY_MESSAGE = 'must be a whole number of megabytes or gigabytes, e.g. 512M or 2G';

/** TEMPLATE_NAME, src/core/groups/model.ts. */
export const TEMPLATE_PATTERN = '^[a-zA-Z0-9_-][a-zA-Z0-9_.-]{0,63}$';
export const TEMPLATE_MESSAGE = 'must be a folder name: letters, digits, _, - and . (not first), up to 64';

/** FILE_NAME, src/core/groups/model.ts (the server jar). */
export const FILE_PATTERN = '^[a-zA-Z0-9_][a-zA-Z0-9_.+-]{0,127}$';
export const FILE_MESSAGE = 'must be a file name in the server folder: letters, digits, _ . + - (not a dot first), up to 128';

/** SOFTWARE_NAMES, src/core/software/kinds.ts. */
export const SOFTWARE = ['VELOCITY', 'PAPER', 'PURPUR', 'FOLIA', 'PUFFERFISH', 'LEAF', 'FABRIC', 'FORGE', 'NEOFORGE', 'CUSTOM'] as const;

/**
 * crossFieldProblem, src/core/groups/model.ts (dedicatedProblem applies it too): CUSTOM software
 * has no jar of its own, so it needs a jar name or a start command.
 */
export function customJarProblem(software: unknown, jarName: unknown, startCommand: unknown): string | null {
  const blank = (value: unknown) => typeof value !== 'string' || value.trim() === '';
  return software === 'CUSTOM' && blank(jarName) && blank(startCommand) ? 'CUSTOM software has no jar of its own: give a jar name, or a start command.' : null;
}

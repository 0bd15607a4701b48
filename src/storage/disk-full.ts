/** Codes that mean "no room to write": the file system's (space, quota) and SQLite's. */
const FULL = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);

/** The code of the first error in the cause chain that says the disk (or quota) is full, if any. */
export function diskFullCode(error: unknown): string | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current && typeof current === 'object' && !seen.has(current)) {
    seen.add(current);
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && FULL.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * A write the caller did not make itself but depends on (the audit row or the session row of an
 * event) that failed: `what` names it for the person reading the answer.
 */
export class RecordWriteError extends Error {
  override name = 'RecordWriteError';
  readonly code: string | undefined;

  constructor(
    readonly what: string,
    cause: unknown,
  ) {
    super(`${what} could not be written: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.code = (cause as { code?: string })?.code;
  }
}

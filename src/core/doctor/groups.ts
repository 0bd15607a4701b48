import { howToLift, type QuarantineRecord } from '../services/quarantine';
import { fail, warn, type Finding } from './model';

/**
 * Each group (or dedicated service) the crash-loop breaker stopped: nothing starts it until an
 * operator lifts it, so it is broken now (FAIL), with why, since when, where to look and how to
 * lift it. A quarantine file that could not be used is a warning: the breaker forgot.
 */
export function quarantineFindings(records: readonly QuarantineRecord[], problem: string | null = null): Finding[] {
  const findings: Finding[] = records.map((q) => {
    const what = q.kind === 'dedicated' ? `dedicated service ${q.name}` : `group ${q.name}`;
    const last = q.lastService ? `; the last crash was ${q.lastService}${q.lastExitCode === null ? '' : ` with exit code ${q.lastExitCode}`}${q.diagnosis ? `: ${q.diagnosis}` : ''}` : '';
    const look = q.lastService ? `\`logs ${q.lastService} --stdout\` (or GET /api/services/${q.lastService}/logs?source=stdout) shows its last lines; ` : '';
    return fail(`${what} is quarantined since ${q.since} (${q.reason})${last}; nothing starts it`, `${look}fix the cause, then lift it: ${howToLift(q)}`);
  });
  if (problem) findings.push(warn(problem, 'the moved file is kept for you to read; nothing needs restoring'));
  return findings;
}

/** A group (or dedicated) file that failed to load: the controller runs without it, so it is broken now. */
export function brokenFileFindings(groups: readonly { message: string }[], dedicated: readonly { message: string }[] = []): Finding[] {
  return [
    ...groups.map((b) => fail(`group file skipped: ${b.message}`, 'fix the file, then POST /api/reload (or `reload` in the console); until then the group does not exist for the controller')),
    ...dedicated.map((b) => fail(`dedicated config skipped: ${b.message}`, 'fix the file, then restart the controller; until then the dedicated service does not exist for it')),
  ];
}

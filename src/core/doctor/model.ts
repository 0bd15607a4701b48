import { Type as T, type Static } from '@sinclair/typebox';

/**
 * OK: fine (or merely worth knowing); WARN: will bite eventually; FAIL: broken now. The
 * existing dashboard knows exactly these three and cannot render a fourth, so an informational
 * finding is OK with its message (see `info`).
 */
export const FINDING_LEVELS = ['OK', 'WARN', 'FAIL'] as const;
export type FindingLevel = (typeof FINDING_LEVELS)[number];

export const FindingSchema = T.Object({
  level: T.Union(FINDING_LEVELS.map((l) => T.Literal(l))),
  message: T.String(),
  hint: T.Union([T.String(), T.Null()], { description: 'what to do about it' }),
});
export type Finding = Static<typeof FindingSchema>;

export const DoctorReportSchema = T.Object({
  sections: T.Array(T.Object({ name: T.String(), findings: T.Array(FindingSchema) })),
  warnCount: T.Integer(),
  failCount: T.Integer(),
  status: T.Union([T.Literal('ok'), T.Literal('warn'), T.Literal('fail')]),
});
export type DoctorReport = Static<typeof DoctorReportSchema>;

/** One section of the report: a name and the checks that fill it. */
export interface DoctorSection {
  name: string;
  run(): Finding[] | Promise<Finding[]>;
}

export const ok = (message: string): Finding => ({ level: 'OK', message, hint: null });
/** Worth knowing, nothing to fix: an OK finding whose message (and hint) says what it is. */
export const info = (message: string, hint: string | null = null): Finding => ({ level: 'OK', message, hint });
export const warn = (message: string, hint: string | null = null): Finding => ({ level: 'WARN', message, hint });
export const fail = (message: string, hint: string | null = null): Finding => ({ level: 'FAIL', message, hint });

/** Runs every section in order; a section that throws is one FAIL finding saying so, never a broken report. */
export async function runDoctor(sections: readonly DoctorSection[]): Promise<DoctorReport> {
  const out: DoctorReport['sections'] = [];
  for (const section of sections) {
    let findings: Finding[];
    try {
      findings = await section.run();
    } catch (error) {
      findings = [fail(`the ${section.name} check itself failed: ${(error as Error).message}`, 'this is a bug or an unexpected environment; the controller log has details')];
    }
    out.push({ name: section.name, findings });
  }
  const all = out.flatMap((s) => s.findings);
  const warnCount = all.filter((f) => f.level === 'WARN').length;
  const failCount = all.filter((f) => f.level === 'FAIL').length;
  return { sections: out, warnCount, failCount, status: failCount > 0 ? 'fail' : warnCount > 0 ? 'warn' : 'ok' };
}

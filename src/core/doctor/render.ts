import type { DoctorReport, FindingLevel } from './model';

const MARK: Record<FindingLevel, string> = { OK: 'ok  ', WARN: 'WARN', FAIL: 'FAIL' };
const COLOUR: Record<FindingLevel, string> = { OK: '\x1b[32m', WARN: '\x1b[33m', FAIL: '\x1b[31m' };

/** The report for a terminal: one line per finding, its hint under it, a verdict at the end. */
export function renderDoctorReport(report: DoctorReport, colour: boolean): string {
  const paint = (level: FindingLevel, text: string) => (colour ? `${COLOUR[level]}${text}\x1b[0m` : text);
  const lines: string[] = [];
  for (const section of report.sections) {
    lines.push(section.name);
    for (const finding of section.findings) {
      lines.push(`  ${paint(finding.level, MARK[finding.level])}  ${finding.message}`);
      if (finding.hint) lines.push(`        → ${finding.hint}`);
    }
  }
  lines.push('', `${report.status.toUpperCase()}: ${report.failCount} failure(s), ${report.warnCount} warning(s)`);
  return `${lines.join('\n')}\n`;
}

import { useQuery } from '@tanstack/preact-query';
import { api } from '../api';

interface Finding {
  level: 'OK' | 'WARN' | 'FAIL';
  message: string;
  hint: string | null;
}
interface DoctorReport {
  sections: { name: string; findings: Finding[] }[];
  warnCount: number;
  failCount: number;
  status: 'ok' | 'warn' | 'fail';
}

/** Every health check of the controller (GET /api/doctor), by section, what to do under each problem. */
export function Doctor() {
  const report = useQuery({ queryKey: ['doctor'], queryFn: () => api<DoctorReport>('/api/doctor') });
  return (
    <section>
      <h1>Doctor</h1>
      <button type="button" onClick={() => void report.refetch()} disabled={report.isFetching}>
        Check again
      </button>
      {report.isPending && <p>Checking…</p>}
      {report.isError && <p role="alert">{report.error.message}</p>}
      {report.data && (
        <>
          <p role="status">
            {report.data.failCount} failure(s), {report.data.warnCount} warning(s)
          </p>
          {report.data.sections.map((section) => (
            <article key={section.name} class="doctor-section">
              <h2>{section.name}</h2>
              <ul>
                {section.findings.map((f, i) => (
                  <li key={i} class={`finding ${f.level.toLowerCase()}`}>
                    <strong>{f.level}</strong> {f.message}
                    {f.hint && <div class="hint">{f.hint}</div>}
                  </li>
                ))}
              </ul>
            </article>
          ))}
        </>
      )}
    </section>
  );
}

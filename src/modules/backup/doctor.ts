import { accessSync, constants, existsSync } from 'node:fs';
import { relative } from 'node:path';
import { fail, ok, warn, type DoctorSection } from '../../core/doctor/model';
import type { BackupRuntime } from './runtime';

const DAY = 86_400_000;

/** The config file, the destination folder, and whether backups have been succeeding. */
export function backupDoctorSection(runtime: BackupRuntime, root: string): DoctorSection {
  return {
    name: 'Backups',
    run: () => {
      const findings = [];
      const problem = runtime.configProblem();
      if (problem) findings.push(fail(`${relative(root, runtime.file)}: ${problem}; the defaults are in force`, 'fix the file and restart, or send the configuration with PUT /api/backups/config'));
      const destination = runtime.manager.destination();
      if (existsSync(destination)) {
        try {
          accessSync(destination, constants.W_OK);
        } catch {
          findings.push(fail(`the backup folder ${destination} is not writable`, 'give the user svc runs as write access to it, or change localDestination'));
        }
      }
      const config = runtime.config();
      const { rows } = runtime.store.list({}, 200, 0);
      const lastGood = rows.find((r) => r.status === 'SUCCESS');
      const failedRecently = rows.filter((r) => r.status === 'FAILED' && r.startedAt > Date.now() - DAY);
      if (failedRecently.length > 0) findings.push(warn(`${failedRecently.length} backup(s) failed in the last day, the latest: ${failedRecently[0]!.errorMessage ?? 'no reason recorded'}`, 'GET /api/backups?status=FAILED'));
      if (!config.enabled) findings.push(warn('scheduled backups are off ([backup] enabled = false)', 'turn them on in backup.toml or with PUT /api/backups/config'));
      findings.push(
        ok(
          `${config.schedules.length} schedule(s); archives in ${destination}; last successful backup: ${lastGood ? new Date(lastGood.completedAt ?? lastGood.startedAt).toISOString() : 'none yet'}`,
        ),
      );
      return findings;
    },
  };
}

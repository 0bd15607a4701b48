import { relative } from 'node:path';
import { info, ok, warn, type DoctorSection } from '../../core/doctor/model';
import { safeHost } from './names';
import type { PunishmentsRuntime } from './runtime';

/** The records in force, the message file, and whether names of unseen players can be resolved. */
export function punishmentsDoctorSection(runtime: PunishmentsRuntime, root: string): DoctorSection {
  return {
    name: 'Punishments',
    run: () => {
      const findings = [ok(`${runtime.service.index.size} ban(s) and mute(s) in force; expiry sweep every ${runtime.expiryIntervalSeconds} s; check answers kept ${runtime.checkCacheTtlSeconds} s`)];
      const problem = runtime.messages.fileProblem();
      if (problem) {
        findings.push(
          warn(
            `${relative(root, runtime.messages.path)}: ${problem}; the default texts stand in`,
            'fix the file and restart, or send the templates with PUT /api/punishments/messages (the old file is kept as messages.toml.broken)',
          ),
        );
      }
      const url = runtime.kernel.config.punishments.name_lookup_url.trim();
      findings.push(
        url === ''
          ? info('the name lookup is off: only players seen on this network (players module) or given by uuid can be punished', 'set [punishments] name_lookup_url to punish players by name before they join')
          : runtime.kernel.modules.lookup('players')
            ? ok(`names resolve from the players module first, then ${safeHost(url)}`)
            : info(`the players module is not installed: every name is looked up at ${safeHost(url)}`, 'install the players module so names of players seen here resolve without a network call'),
      );
      return findings;
    },
  };
}


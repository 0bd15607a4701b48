import { existsSync, statSync } from 'node:fs';
import { sep } from 'node:path';
import { fail, ok, warn, type DoctorSection, type Finding } from '../../core/doctor/model';
import type { AuthRuntime } from './runtime';

/**
 * The key file (present, private, not just regenerated over enrolments), what logins need
 * (the permissions and players modules), where links and passkeys point, and the passkey setup.
 */
export function authDoctorSection(runtime: AuthRuntime): DoctorSection {
  return {
    name: 'Dashboard login',
    run: () => {
      const findings: Finding[] = [];
      findings.push(keyFinding(runtime));
      const unreadable = runtime.totp.unreadable();
      if (unreadable > 0) {
        findings.push(
          fail(
            `${unreadable} TOTP enrolment(s) cannot be read with the current session.key (it was regenerated or replaced)`,
            'those players must disable TOTP with a recovery code and enrol again; restore the old key from a backup if you have it',
          ),
        );
      }
      const modules = runtime.kernel.modules;
      if (!modules.lookup('perms')) findings.push(fail('the permissions module is not installed: nobody can log in to the dashboard with a game account', 'POST /api/modules/install/perms, then restart'));
      if (!modules.lookup('players')) findings.push(warn('the players module is not installed: login codes and magic links cannot check who is online, so they are refused', 'POST /api/modules/install/players, then restart'));
      findings.push(
        runtime.publicUrlConfigured
          ? ok(`magic links and passkeys point at ${runtime.publicUrl}`)
          : warn(`no dashboard URL is set: magic links point at ${runtime.publicUrl}`, 'set [dashboard] public_url in svc.toml (or [dashboard] public_url in config/modules/auth/auth.toml)'),
      );
      if (runtime.passkeyProblem) findings.push(fail(runtime.passkeyProblem, 'fix [webauthn] in config/modules/auth/auth.toml and restart'));
      else if (runtime.relyingParty) findings.push(ok(`passkeys for ${runtime.relyingParty.id} from ${runtime.relyingParty.origins.join(', ')}`));
      else findings.push(ok('passkeys are turned off ([webauthn] enabled = false)'));
      findings.push(ok(`${runtime.sessions.allActive().length} active dashboard session(s)`));
      return findings;
    },
  };
}

function keyFinding(runtime: AuthRuntime): Finding {
  const { keyFile, key } = runtime;
  let mode: number;
  try {
    mode = statSync(keyFile).mode & 0o777;
  } catch {
    return fail(`${keyFile} is missing: TOTP secrets cannot be read`, 'restart the controller to make a new key (every TOTP enrolment is then lost), or restore it from a backup');
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) return warn(`${keyFile} is readable by others (mode ${mode.toString(8)})`, `chmod 600 ${keyFile}`);
  if (key.strayLegacy && existsSync(key.strayLegacy)) {
    return warn(`an old session.key lies at ${key.strayLegacy} besides the key in use (${keyFile}); it is not read`, `delete ${key.strayLegacy}; if it is the key your TOTP enrolments were made with, stop svc and move it to ${keyFile} instead`);
  }
  const configDir = runtime.kernel.paths.config;
  if (keyFile === configDir || keyFile.startsWith(`${configDir}${sep}`)) {
    return warn(`${keyFile} lies inside config/, next to files config backups carry`, `set [security] token_encryption_key_file in config/modules/auth/auth.toml to data/auth/session.key (the default) and restart`);
  }
  return ok(`${keyFile} (mode 600)`);
}

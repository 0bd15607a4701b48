import type { Config } from '../../config/schema';
import type { Group } from '../groups/model';
import { SURVIVES_CONTROLLER } from '../supervisor/process';
import { javaMajorFor, selectJava, type JavaMajor } from '../software/java';
import { probeJava, type JavaProbe } from './java-probe';
import { fail, info, ok, warn, type Finding } from './model';


/**
 * Java: for every group that runs a Java server (no startCommand of its own), the binary it
 * would use must exist and be at least the major its Minecraft version needs. A group that
 * cannot start is a FAIL; no Java anywhere with no group needing it is only worth knowing.
 */
export function environmentFindings(groups: readonly Group[], java: Config['java'], probe: JavaProbe = probeJava): Finding[] {
  const findings: Finding[] = [];
  const needs = new Map<string, { major: JavaMajor; groups: string[] }>();
  for (const group of groups) {
    if (group.startCommand.length > 0 || group.software === 'CUSTOM') continue;
    let major: JavaMajor;
    try {
      major = javaMajorFor(group.software, group.version);
    } catch {
      continue; // a bad version is the group check's business
    }
    const binary = selectJava(group.software, group.version, java, group.javaPath);
    const entry = needs.get(binary) ?? { major, groups: [] };
    entry.major = Math.max(entry.major, major) as JavaMajor;
    entry.groups.push(group.name);
    needs.set(binary, entry);
  }
  for (const [binary, need] of needs) {
    const found = probe(binary);
    const who = `group${need.groups.length > 1 ? 's' : ''} ${need.groups.join(', ')}`;
    if ('error' in found) {
      findings.push(fail(`Java "${binary}" for ${who} cannot be run: ${found.error}`, `install Java ${need.major} or set [java] java_${need.major} (or the group's java_path) to its binary`));
    } else if (found.major < need.major) {
      findings.push(fail(`Java "${binary}" is ${found.version}; ${who} need Java ${need.major}`, `install Java ${need.major} and point [java] java_${need.major} at it`));
    } else {
      findings.push(ok(`Java "${binary}" ${found.version} for ${who}`));
    }
  }
  if (needs.size === 0) {
    const found = probe('java');
    findings.push('error' in found ? info('no group runs a Java server; no java on PATH either') : ok(`java on PATH is ${found.version}; no group needs it yet`));
  }
  findings.push(
    SURVIVES_CONTROLLER
      ? ok('services run under their own process group with a FIFO console: they survive a controller restart')
      : warn('this platform has no FIFOs: services use pipes and end with the controller', 'run the controller on Linux or macOS to keep services running across controller restarts'),
  );
  return findings;
}

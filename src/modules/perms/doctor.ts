import { ok, warn, type DoctorSection, type Finding } from '../../core/doctor/model';
import type { PermState } from './state';
import { TRACK_MIN_GROUPS } from './tracks-service';

/** The default group, the sizes, and tracks a deleted group left too short to promote along. */
export function permsDoctorSection(state: PermState): DoctorSection {
  return {
    name: 'Permissions',
    run: () => {
      const findings: Finding[] = [];
      const fallback = state.defaultGroup();
      findings.push(
        fallback
          ? ok(`${state.groups().length} group(s), default group "${fallback.name}"`)
          : warn('no permission group is the default: players the module does not know have no permissions', 'mark one with PUT /api/permissions/groups/{name} {"default":true} or `perms group setdefault <name>`'),
      );
      for (const track of state.tracks()) {
        if (track.groups.length < TRACK_MIN_GROUPS) {
          findings.push(warn(`track "${track.name}" has ${track.groups.length} group(s) left (a group on it was deleted)`, `delete it and create it again with at least ${TRACK_MIN_GROUPS} groups`));
        }
      }
      return findings;
    },
  };
}

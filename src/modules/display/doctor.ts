import { relative } from 'node:path';
import { ok, warn, type DoctorSection } from '../../core/doctor/model';
import type { DisplayStore } from './store';

/** One WARN per display file that cannot be read (its group is on the defaults meanwhile). */
export function displayDoctorSection(store: DisplayStore, root: string): DoctorSection {
  return {
    name: 'Display',
    run: () => {
      const broken = store.brokenFiles();
      if (broken.length === 0) return [ok(`${store.size} display configuration(s) loaded`)];
      return broken.map(({ group, file, problem }) =>
        warn(
          `${relative(root, file)}: ${problem}; group "${group}" shows the default display until this is fixed`,
          `fix the file and run POST /api/reload, or POST /api/displays/${group}/reset to rewrite it with the defaults (the old file is kept as ${relative(root, file)}.broken)`,
        ),
      );
    },
  };
}

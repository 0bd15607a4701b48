import { relative } from 'node:path';
import { fail, ok, type DoctorSection } from '../../core/doctor/model';
import type { ScalingRuntime } from './runtime';

/** Each group's file: usable or not (by name, with the key and what it expects). */
export function scalingDoctorSection(runtime: ScalingRuntime, root: string): DoctorSection {
  return {
    name: 'Smart scaling',
    run: () => {
      const findings = runtime.configs.brokenFiles().map((b) => fail(`${relative(root, b.file)}: ${b.problem}; smart scaling of "${b.group}" is off`, 'fix the file, then run `scaling reload`'));
      const configs = runtime.configs.all();
      const scheduled = configs.filter((c) => c.enabled && c.rules.length > 0).length;
      const predicted = configs.filter((c) => c.prediction.enabled).length;
      findings.push(ok(`${configs.length} group file(s) in use: ${scheduled} with a schedule, ${predicted} with predictions`));
      return findings;
    },
  };
}

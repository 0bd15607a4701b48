import { accessSync, constants, existsSync, statfsSync } from 'node:fs';
import type { Paths } from '../../config/paths';
import { fail, ok, warn, type Finding } from './model';

const GIB = 1024 ** 3;

/** Every folder exists and is writable; the disk under them has room (< 1 GB FAIL, < 5 GB WARN). */
export function storageFindings(paths: Paths): Finding[] {
  const findings: Finding[] = [];
  const checkedDevices = new Set<string>();
  for (const [name, path] of Object.entries(paths)) {
    if (!existsSync(path)) {
      findings.push(warn(`${name} folder ${path} does not exist`, 'it is created on the next start; check [paths] if it should be elsewhere'));
      continue;
    }
    try {
      accessSync(path, constants.W_OK);
    } catch {
      findings.push(fail(`${name} folder ${path} is not writable`, `give the controller's user write access (chown) to ${path}`));
      continue;
    }
    const fs = statfsSync(path);
    const free = fs.bavail * fs.bsize;
    const device = `${fs.type}:${fs.blocks}:${fs.bsize}`;
    if (checkedDevices.has(device)) continue;
    checkedDevices.add(device);
    const gb = (free / GIB).toFixed(1);
    if (free < GIB) findings.push(fail(`only ${gb} GB free under ${path}`, 'free disk space: services cannot be provisioned and the database may fail'));
    else if (free < 5 * GIB) findings.push(warn(`${gb} GB free under ${path}`, 'worlds and logs grow; keep at least 5 GB free'));
    else findings.push(ok(`${gb} GB free under ${path}`));
  }
  return findings;
}

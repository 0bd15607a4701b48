import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fail, ok, warn, type DoctorSection } from '../../core/doctor/model';
import type { ResourcePacksRuntime } from './runtime';

const MiB = 1024 * 1024;

/**
 * The pack storage: the directory exists and only the controller may write it (anyone who can
 * swap a file there serves every player what they like), every LOCAL pack has its file, and
 * no file lies there that no pack names.
 */
export function resourcePacksDoctorSection(runtime: ResourcePacksRuntime, root: string): DoctorSection {
  return {
    name: 'Resource Packs',
    run: () => {
      const dir = runtime.dir;
      const shown = relative(root, dir) || dir;
      if (!existsSync(dir) || !statSync(dir).isDirectory()) return [fail(`${shown} does not exist`, 'restart the controller to create it, or create it (mode 750) for the user svc runs as')];
      const findings = [];
      const mode = statSync(dir).mode & 0o777;
      if ((mode & 0o002) !== 0) findings.push(fail(`${shown} is world-writable (mode ${mode.toString(8)}): anyone on this machine could replace a pack the players download`, `chmod 750 ${shown}`));
      const packs = runtime.service.list();
      const local = packs.filter((p) => p.source === 'LOCAL');
      const missing = local.filter((p) => !existsSync(runtime.service.fileOf(p.packUuid)));
      if (missing.length > 0) {
        findings.push(
          fail(
            `${missing.length} LOCAL pack(s) without their file: ${missing.map((p) => `"${p.name}" (id ${p.id})`).join(', ')}`,
            'upload them again, or delete them (DELETE /api/resourcepacks/{id} or `resourcepacks remove <id>`)',
          ),
        );
      }
      const known = new Set(local.map((p) => `${p.packUuid}.zip`));
      const orphans = readdirSync(dir).filter((f) => f.endsWith('.zip') && !known.has(f));
      if (orphans.length > 0) {
        const bytes = orphans.reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);
        findings.push(warn(`${orphans.length} file(s) in ${shown} belong to no pack (${(bytes / MiB).toFixed(1)} MiB): ${orphans.slice(0, 5).join(', ')}${orphans.length > 5 ? ', …' : ''}`, `remove them from ${shown} if nothing else uses them`));
      }
      if (findings.length === 0) findings.push(ok(`${local.length - missing.length} local pack file(s) present (+ ${packs.length - local.length} URL pack(s)) in ${shown}`));
      return findings;
    },
  };
}

import { chmodSync, lstatSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Check } from './resolve';

/** A path and the mode it must have; `children` also sets every folder directly inside it. */
export interface ModeRule {
  path: string;
  mode: number;
  children?: number;
}

/**
 * The folders and files of a controller (or agent) as a service uid must see them: the secrets
 * (data/ with the token, database, cluster key and session key; the config file; config/ and
 * templates/) owner-only; the folders above the service folders searchable but not listable
 * (0711), so a server reaches its own folder by name and nothing else; each service folder
 * 0700 (its uid owns it once it runs). `roots` are the folders the service folders live in.
 */
export function controllerModes(layout: { dir: string; configFile: string; ownerOnly: readonly string[]; serviceRoots: readonly { root: string; sub: readonly string[] }[] }): ModeRule[] {
  const rules: ModeRule[] = [{ path: layout.dir, mode: 0o711 }, { path: layout.configFile, mode: 0o600 }];
  for (const path of layout.ownerOnly) rules.push({ path, mode: 0o700 });
  for (const { root, sub } of layout.serviceRoots) {
    if (sub.length === 0) rules.push({ path: root, mode: 0o711, children: 0o700 });
    else {
      rules.push({ path: root, mode: 0o711 });
      for (const name of sub) rules.push({ path: join(root, name), mode: 0o711, children: 0o700 });
    }
  }
  return rules;
}

/**
 * Applies the rules to what exists; a link is never followed (its target is not ours to
 * change). Returns the paths whose mode changed, for the log.
 */
export function applyModes(rules: readonly ModeRule[]): string[] {
  const changed: string[] = [];
  const set = (path: string, mode: number, folderOnly: boolean) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return; // absent
    }
    if (stat.isSymbolicLink() || (folderOnly && !stat.isDirectory())) return;
    if ((stat.mode & 0o7777) === mode) return;
    chmodSync(path, mode);
    changed.push(path);
  };
  for (const rule of rules) {
    set(rule.path, rule.mode, false);
    if (rule.children === undefined) continue;
    let names: string[] = [];
    try {
      if (lstatSync(rule.path).isDirectory()) names = readdirSync(rule.path);
    } catch {
      // absent
    }
    for (const name of names) set(join(rule.path, name), rule.children, true);
  }
  return changed;
}

/**
 * A service uid must reach its folder: every folder above `roots` that svc does not set to
 * 0711 itself (`own`: the controller's folder and the roots) must be searchable by others.
 */
export function reachableByOthers(roots: readonly string[], own: readonly string[]): Check {
  for (const root of roots) {
    for (let dir = dirname(root); ; dir = dirname(dir)) {
      if (!own.some((path) => path === dir)) {
        let mode: number;
        try {
          mode = statSync(dir).mode;
        } catch (error) {
          return { ok: false, why: `${dir} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
        }
        if ((mode & 0o001) === 0) return { ok: false, why: `${dir} (mode ${(mode & 0o777).toString(8)}) is not searchable by other users, so a service uid cannot reach ${root}` };
      }
      if (dir === dirname(dir)) break;
    }
  }
  return { ok: true };
}

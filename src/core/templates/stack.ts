import { mkdirSync } from 'node:fs';
import { ApiError } from '../../errors';
import { templateStack, type Group } from '../groups/model';
import { SOFTWARE } from '../software/kinds';
import { isDirectory } from './is-directory';
import { templateDir } from './template-name';

/** One source folder of a service's files. */
export interface TemplateLayer {
  /** Template name: a folder directly under the templates root. */
  name: string;
  /** Absolute folder. */
  dir: string;
  /** True for the global overlay (`global` / `global_proxy`), which is always laid last. */
  overlay: boolean;
}

/**
 * The folders a service's files come from, in copy order: later layers overwrite earlier ones.
 *
 * 1. The group's own stack (`templates`, else `[template]`, else the group name).
 * 2. The software's global overlay last, so it always wins: `global` for the Paper family,
 *    `global_proxy` for Velocity. Kinds without an overlay (modded, CUSTOM) get none. An
 *    overlay folder that does not exist is simply left out.
 *
 * A named stack template that does not exist is TEMPLATE_NOT_FOUND. The one exception is the
 * implicit default (no `templates`, and `template` empty or equal to the group name): a new
 * group has no folder yet, so it is created empty rather than failing the first start.
 * Template roots that are symlinks to folders are followed (the operator put them there);
 * links inside templates are never copied (see merge-plan.ts).
 */
export function resolveTemplateStack(templatesRoot: string, group: Group): TemplateLayer[] {
  const implicitDefault = group.templates.length === 0 && (group.template === '' || group.template === group.name);
  const layers: TemplateLayer[] = templateStack(group).map((name) => {
    const dir = templateDir(templatesRoot, name);
    if (!isDirectory(dir)) {
      if (!implicitDefault) {
        throw new ApiError('TEMPLATE_NOT_FOUND', `template "${name}" of group "${group.name}" does not exist`);
      }
      mkdirSync(dir, { recursive: true });
    }
    return { name, dir, overlay: false };
  });
  const overlay = SOFTWARE[group.software].templateOverlay;
  if (overlay !== null) {
    const dir = templateDir(templatesRoot, overlay);
    if (isDirectory(dir)) layers.push({ name: overlay, dir, overlay: true });
  }
  return layers;
}

import { join } from 'node:path';
import { ApiError } from '../errors';
import type { Group } from '../core/groups/model';
import { SOFTWARE } from '../core/software/kinds';
import { hashDirectories, hashedNames, listRegularFiles } from '../core/templates/hash';
import { isDirectory } from '../core/templates/is-directory';
import { templateDir } from '../core/templates/template-name';
import { digestFiles } from './template-digest';

type Software = Group['software'];

/**
 * One template as an agent receives it: its files with the software's global overlay laid
 * over them (the overlay always wins, as on the controller). Applying a group's stack of these
 * in order gives the same files as provisioning the stack locally.
 */
export function templateFiles(templatesRoot: string, name: string, software: Software): Map<string, string> {
  const dir = templateDir(templatesRoot, name);
  if (!isDirectory(dir)) throw new ApiError('TEMPLATE_NOT_FOUND', `template "${name}" does not exist`);
  const files = new Map<string, string>();
  const overlay = SOFTWARE[software].templateOverlay;
  const layers = [dir, ...(overlay && overlay !== name ? [templateDir(templatesRoot, overlay)] : [])];
  for (const layer of layers) for (const rel of listRegularFiles(layer)) files.set(rel, join(layer, rel));
  return files;
}

/** The hash agents key their cache by: the reference order (overlays first, then the template). */
export function templateArchiveHash(templatesRoot: string, name: string, software: Software): Promise<string> {
  if (!isDirectory(templateDir(templatesRoot, name))) throw new ApiError('TEMPLATE_NOT_FOUND', `template "${name}" does not exist`);
  return hashDirectories(hashedNames(software, [name]).map((n) => templateDir(templatesRoot, n)));
}

/**
 * The content digest of exactly the files the download's ZIP carries (template-digest.ts):
 * what START_SERVICE names and the agent checks what it unpacked against.
 */
export function templateDigest(templatesRoot: string, name: string, software: Software): Promise<string> {
  return digestFiles(templateFiles(templatesRoot, name, software));
}

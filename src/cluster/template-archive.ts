import { join } from 'node:path';
import { Zip, ZipDeflate, ZipPassThrough } from 'fflate';
import { ApiError } from '../errors';
import type { Group } from '../core/groups/model';
import { SOFTWARE } from '../core/software/kinds';
import { hashDirectories, hashedNames, listRegularFiles } from '../core/templates/hash';
import { isDirectory } from '../core/templates/is-directory';
import { templateDir } from '../core/templates/template-name';

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

/** Already-compressed formats are stored; the rest deflated quickly. */
const STORED = /\.(jar|zip|gz|png|jpg|ogg|mca|dat|xz|zst)$/i;

/**
 * A streamed ZIP of the files: one file is read at a time, chunk by chunk, so memory stays
 * flat however large the template is.
 */
export function zipStream(files: Map<string, string>): ReadableStream<Uint8Array> {
  const entries = [...files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const zip = new Zip((error, chunk, final) => {
        if (error) return controller.error(error);
        controller.enqueue(chunk);
        if (final) controller.close();
      });
      try {
        for (const [rel, path] of entries) {
          const entry = STORED.test(rel) ? new ZipPassThrough(rel) : new ZipDeflate(rel, { level: 1 });
          zip.add(entry);
          const reader = Bun.file(path).stream().getReader();
          let pending: Uint8Array | null = null;
          for (;;) {
            const { done, value } = await reader.read();
            if (done) break;
            if (pending) entry.push(pending, false);
            pending = value;
          }
          entry.push(pending ?? new Uint8Array(0), true);
        }
        zip.end();
      } catch (error) {
        controller.error(error);
      }
    },
  });
}

import { ApiError } from '../../errors';
import type { PackRef, PackSourceName } from './source';

/**
 * What a resolve request names: a pack page URL or an id.
 *
 *   https://modrinth.com/modpack/{slug}[/version/{version}]           Modrinth
 *   https://www.curseforge.com/minecraft/modpacks/{slug}[/files/{id}]  CurseForge
 *   id "fabulously-optimized" or "1KVo5zza"                            Modrinth (unless source says)
 *   id "285109" (digits)                                               CurseForge (unless source says)
 */
export function packRefOf(input: { url?: string; id?: string; source?: PackSourceName }): PackRef {
  if (input.url !== undefined) {
    const ref = fromUrl(input.url);
    if (input.source !== undefined && input.source !== ref.source) throw new ApiError('VALIDATION_FAILED', `the URL is a ${ref.source} page but "source" says ${input.source}`);
    return ref;
  }
  const id = input.id?.trim();
  if (!id) throw new ApiError('VALIDATION_FAILED', 'body needs "url" (a Modrinth or CurseForge pack page) or "id"');
  return { source: input.source ?? (/^\d+$/.test(id) ? 'curseforge' : 'modrinth'), project: id };
}

function fromUrl(raw: string): PackRef {
  let url: URL;
  try {
    url = new URL(/^[a-z]+:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw new ApiError('VALIDATION_FAILED', `"url" is not a URL: ${raw.slice(0, 200)}`);
  }
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeSegment);
  if (host === 'modrinth.com' && parts.length >= 2 && ['modpack', 'project', 'mod'].includes(parts[0]!)) {
    return { source: 'modrinth', project: parts[1]!, version: parts[2] === 'version' ? parts[3] : undefined };
  }
  if (host === 'curseforge.com' && parts[0] === 'minecraft' && parts[1] === 'modpacks' && parts[2]) {
    return { source: 'curseforge', project: parts[2], version: parts[3] === 'files' ? parts[4] : undefined };
  }
  throw new ApiError('VALIDATION_FAILED', `"url" is not a modpack page: expected https://modrinth.com/modpack/<slug> or https://www.curseforge.com/minecraft/modpacks/<slug>`);
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new ApiError('VALIDATION_FAILED', `"url" has a malformed percent-escape`);
  }
}

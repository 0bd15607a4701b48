import { ApiError } from '../../errors';
import { PACK_SOURCES, type PackRef, type PackSourceName } from './source';

/**
 * What a request names as the pack. Two forms, told apart by the value of `source`:
 *
 *   our form      source "modrinth" | "curseforge", the pack in url / id (resolve) or
 *                 projectId / slug (imports)
 *   free text     source is the pack itself (the dashboard's form):
 *     https://modrinth.com/modpack/{slug}[/version/{version}]           Modrinth
 *     https://www.curseforge.com/minecraft/modpacks/{slug}[/files/{id}]  CurseForge
 *     modrinth:{slug|id}, curseforge:{slug|id}                          that host
 *     285109 (digits)                                                    a CurseForge project id
 *     fabulously-optimized, 1KVo5zza                                     Modrinth; when Modrinth does
 *                                                                        not know it and a CurseForge
 *                                                                        key is set, a CurseForge slug
 *
 * An id without source: digits are CurseForge, anything else Modrinth.
 */

/** A pack named by free text, with whether the host was only guessed (a bare name). */
export interface NamedPack extends PackRef {
  /** A bare name: looked up on Modrinth first, then on CurseForge (when a key is set). */
  guessed?: boolean;
}

const isHost = (value: string | undefined): value is PackSourceName => (PACK_SOURCES as readonly string[]).includes(value ?? '');
const invalid = (message: string) => new ApiError('VALIDATION_FAILED', message);
const FREE_TEXT_FORMS = 'a Modrinth slug or id, a Modrinth or CurseForge modpack page URL, curseforge:<slug>, modrinth:<slug> or a CurseForge project id';

/** POST /api/modpacks/resolve: {url} or {id} (with source a host, or none), or {source: free text}. */
export function packRefOf(input: { url?: string; id?: string; source?: string }): NamedPack {
  if (input.url === undefined && input.id === undefined) {
    if (input.source === undefined || isHost(input.source)) throw invalid(`body needs "url" (a Modrinth or CurseForge pack page) or "id", or the pack itself in "source" (${FREE_TEXT_FORMS})`);
    return packRefOfText(input.source);
  }
  if (input.source !== undefined && !isHost(input.source)) {
    throw invalid(`body "source" must be "modrinth" or "curseforge" beside "url" or "id" (or send the pack alone in "source"), got ${JSON.stringify(input.source.slice(0, 100))}`);
  }
  if (input.url !== undefined) {
    const ref = fromUrl(input.url, 'url');
    if (input.source !== undefined && input.source !== ref.source) throw invalid(`the URL is a ${ref.source} page but "source" says ${input.source}`);
    return ref;
  }
  const id = input.id?.trim();
  if (!id) throw invalid('body needs "url" (a Modrinth or CurseForge pack page) or "id"');
  return { source: input.source ?? (/^\d+$/.test(id) ? 'curseforge' : 'modrinth'), project: id };
}

/** The imports: {source: host, projectId | slug, versionId?} or {source: free text, versionId?}. */
export function packRefOfImport(body: { source: string; projectId?: string; slug?: string; versionId?: string }): NamedPack {
  if (isHost(body.source)) {
    const project = body.projectId ?? body.slug;
    if (!project) throw invalid(`body needs "projectId" or "slug" with source "${body.source}" (or the pack itself in "source": ${FREE_TEXT_FORMS})`);
    return { source: body.source, project, version: body.versionId };
  }
  const given = body.projectId !== undefined ? 'projectId' : body.slug !== undefined ? 'slug' : null;
  if (given) throw invalid(`body "${given}" goes with source "modrinth" or "curseforge"; here "source" names the pack itself`);
  const ref = packRefOfText(body.source);
  return { ...ref, version: body.versionId ?? ref.version };
}

/** The pack named by the free text of `source`. */
export function packRefOfText(text: string): NamedPack {
  const value = text.trim();
  if (value === '') throw invalid(`body "source" is empty: send ${FREE_TEXT_FORMS}`);
  const prefixed = /^(modrinth|curseforge):(?!\/\/)(.*)$/i.exec(value);
  if (prefixed) return { source: prefixed[1]!.toLowerCase() as PackSourceName, project: plainName(prefixed[2]!.trim()) };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value) || /^(www\.)?(modrinth|curseforge)\.com\//i.test(value)) return fromUrl(value, 'source');
  const name = plainName(value);
  if (/^\d+$/.test(name)) return { source: 'curseforge', project: name };
  return { source: 'modrinth', project: name, guessed: true };
}

/** A slug or id as hosts spell them: no spaces, separators, escapes or control characters. */
function plainName(name: string): string {
  if (!/^[^\s/\\?#%\u0000-\u001f\u007f]{1,128}$/u.test(name)) {
    throw invalid(`body "source" must be ${FREE_TEXT_FORMS}; got ${JSON.stringify(name.slice(0, 100))} (a slug is the last part of the pack page's URL, without spaces)`);
  }
  return name;
}

function fromUrl(raw: string, field: string): PackRef {
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`);
  } catch {
    throw invalid(`body "${field}" is not a URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid(`body "${field}" is not a web page address (https://...): ${raw.slice(0, 200)}`);
  const host = url.hostname.toLowerCase().replace(/^www\./, '');
  const parts = url.pathname.split('/').filter(Boolean).map((segment) => decodeSegment(segment, field));
  if (host === 'modrinth.com' && parts.length >= 2 && ['modpack', 'project', 'mod'].includes(parts[0]!)) {
    return { source: 'modrinth', project: parts[1]!, version: parts[2] === 'version' ? parts[3] : undefined };
  }
  if (host === 'curseforge.com' && parts[0] === 'minecraft' && parts[1] === 'modpacks' && parts[2]) {
    return { source: 'curseforge', project: parts[2], version: parts[3] === 'files' ? parts[4] : undefined };
  }
  throw invalid(`body "${field}" is not a modpack page: expected https://modrinth.com/modpack/<slug> or https://www.curseforge.com/minecraft/modpacks/<slug>`);
}

function decodeSegment(segment: string, field: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw invalid(`body "${field}" has a malformed percent-escape`);
  }
}

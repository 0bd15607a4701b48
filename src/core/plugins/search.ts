import { ApiError } from '../../errors';
import { Type, type Static } from '@sinclair/typebox';
import type { Upstreams } from '../software/upstream/upstreams';
import { HANGAR } from '../software/upstream/hangar';
import { MODRINTH } from '../software/upstream/modrinth';
import type { PluginPlatform } from './platform';

export const PLUGIN_SOURCES = ['modrinth', 'hangar'] as const;
export type PluginSource = (typeof PLUGIN_SOURCES)[number];

export const PluginSearchItemSchema = Type.Object({
  source: Type.Union(PLUGIN_SOURCES.map((s) => Type.Literal(s))),
  name: Type.String(),
  author: Type.String(),
  slug: Type.String(),
  projectId: Type.String({ description: 'Modrinth project id; Hangar numeric project id as text' }),
  description: Type.String(),
  downloads: Type.Integer(),
});
export type PluginSearchItem = Static<typeof PluginSearchItemSchema>;

export const PluginSearchResultSchema = Type.Object({
  results: Type.Array(PluginSearchItemSchema, { description: 'both repositories, interleaved, each in its own relevance order' }),
  total: Type.Integer(),
  unavailable: Type.Array(Type.Object({ source: Type.String(), message: Type.String() }), {
    description: 'repositories that could not be asked (the message names the upstream and URL); the results are from the others',
  }),
});
export type PluginSearchResult = Static<typeof PluginSearchResultSchema>;

export interface PluginQuery {
  q: string;
  mcVersion?: string;
  platform: PluginPlatform;
  /** Per repository. */
  limit: number;
}

/**
 * Searches Modrinth (project type plugin, the game version, the platform's loaders) and Hangar
 * (the platform and game version) at once. A repository that cannot be asked is reported in
 * `unavailable` (upstream, URL, reason) beside the other's results. When neither can be asked
 * the search fails with SERVICE_UNAVAILABLE naming both: an empty list would read as "no such
 * plugin" (the dashboard shows only `results`), which is not what happened.
 */
export async function searchPlugins(up: Upstreams, query: PluginQuery): Promise<PluginSearchResult> {
  const [modrinth, hangar] = await Promise.allSettled([
    up.modrinth.search({ query: query.q, projectType: 'plugin', gameVersion: query.mcVersion, loaders: query.platform.modrinthLoaders, limit: query.limit }),
    up.hangar.search(query.q, query.platform.hangar, query.mcVersion, query.limit),
  ]);
  const unavailable: { source: string; message: string }[] = [];
  const fromModrinth: PluginSearchItem[] = [];
  const fromHangar: PluginSearchItem[] = [];
  if (modrinth.status === 'fulfilled') {
    for (const hit of modrinth.value) {
      fromModrinth.push({ source: 'modrinth', name: hit.title, author: hit.author, slug: hit.slug, projectId: hit.project_id, description: hit.description, downloads: hit.downloads });
    }
  } else {
    unavailable.push({ source: 'modrinth', message: messageOf(modrinth.reason, MODRINTH) });
  }
  if (hangar.status === 'fulfilled') {
    for (const project of hangar.value) {
      fromHangar.push({
        source: 'hangar',
        name: project.name,
        author: project.namespace.owner,
        slug: project.namespace.slug,
        projectId: project.id === undefined ? project.namespace.slug : String(project.id),
        description: project.description ?? '',
        downloads: project.stats.downloads,
      });
    }
  } else {
    unavailable.push({ source: 'hangar', message: messageOf(hangar.reason, HANGAR) });
  }
  if (unavailable.length === 2) {
    throw new ApiError('SERVICE_UNAVAILABLE', `no plugin repository could be searched: ${unavailable.map((u) => u.message).join('; ')}`);
  }
  const results = interleave(fromModrinth, fromHangar);
  return { results, total: results.length, unavailable };
}

function interleave<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (i < a.length) out.push(a[i]!);
    if (i < b.length) out.push(b[i]!);
  }
  return out;
}

function messageOf(reason: unknown, upstream: string): string {
  return reason instanceof Error ? reason.message : `${upstream}: ${String(reason)}`;
}

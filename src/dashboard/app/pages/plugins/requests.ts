/**
 * The plugin routes (plugins.ts: search Modrinth and Hangar, install into a group) and the files
 * routes the page lists and removes installed plugins with: an install writes into the plugins/
 * folder of the group's first template, so that folder is what the page shows.
 */
import { api } from '../../api';

export interface PluginGroup {
  name: string;
  software: string;
  version: string;
  template: string;
  templates: string[];
}

export interface PluginHit {
  source: 'modrinth' | 'hangar';
  name: string;
  author: string;
  slug: string;
  projectId: string;
  description: string;
  downloads: number;
}
export interface SearchResult {
  results: PluginHit[];
  total: number;
  /** Repositories that could not be asked; the results are the other's. */
  unavailable: { source: string; message: string }[];
}

export interface InstalledFile {
  name: string;
  size: number;
  lastModified: string;
}

interface Entry {
  name: string;
  isDirectory: boolean;
  size: number;
  lastModified: string;
}
interface Listing {
  entries: Entry[];
}

/** The platforms the API knows (platform.ts), and the one a group's software takes (null: mods, not plugins). */
export const PLATFORMS = ['paper', 'purpur', 'pufferfish', 'leaf', 'folia', 'spigot', 'bukkit', 'velocity', 'waterfall', 'bungeecord'];
export function platformOf(software: string): string | null {
  switch (software) {
    case 'VELOCITY':
      return 'velocity';
    case 'PURPUR':
      return 'purpur';
    case 'FOLIA':
      return 'folia';
    case 'FABRIC':
    case 'FORGE':
    case 'NEOFORGE':
      return null;
    default:
      return 'paper';
  }
}

/** The template an install writes into: the first of a stack, else the group's own. */
export const templateOf = (g: PluginGroup) => (g.templates.length > 0 ? g.templates[0]! : g.template || g.name);

const files = (path: string) => `/api/files/templates/${path.split('/').map(encodeURIComponent).join('/')}`;
const listing = (path: string) => api<Listing>(files(path));
const has = (l: Listing, name: string) => l.entries.some((e) => e.isDirectory && e.name === name);

/**
 * The .jar files in the template's plugins/ folder, newest first; none when the template or its
 * plugins/ does not exist yet (each level is listed before it is opened: no 404 to show).
 */
export async function installedPlugins(template: string): Promise<InstalledFile[]> {
  const root = await api<Listing>('/api/files/templates');
  if (!has(root, template)) return [];
  if (!has(await listing(template), 'plugins')) return [];
  const entries = (await listing(`${template}/plugins`)).entries;
  return entries.filter((e) => !e.isDirectory && e.name.toLowerCase().endsWith('.jar')).map(({ name, size, lastModified }) => ({ name, size, lastModified }));
}

export const removePlugin = (template: string, file: string) => api<{ message: string }>(files(`${template}/plugins/${file}`), { method: 'DELETE' });

export function searchPlugins(q: string, platform: string, mcVersion: string): Promise<SearchResult> {
  const query = new URLSearchParams({ q, platform });
  if (mcVersion) query.set('mcVersion', mcVersion);
  return api<SearchResult>(`/api/plugins/search?${query}`);
}

export const installPlugin = (hit: PluginHit, group: string, platform: string, mcVersion: string) =>
  api<{ message: string; installed: { name: string; file: string; version: string }[] }>('/api/plugins/install', {
    method: 'POST',
    json: { source: hit.source, slug: hit.slug, projectId: hit.projectId, group, platform, ...(mcVersion ? { mcVersion } : {}) },
  });

export const installedKey = (template: string) => ['plugins', 'installed', template] as const;

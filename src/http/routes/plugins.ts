import { t } from '../t';
import { GROUP_NAME } from '../../core/groups/model';
import { InstalledPluginSchema } from '../../core/plugins/install';
import { pluginPlatform, PLUGIN_PLATFORM_NAMES } from '../../core/plugins/platform';
import { PLUGIN_SOURCES, PluginSearchResultSchema } from '../../core/plugins/search';
import type { SoftwareServices } from '../../core/software/software-services';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

const McVersion = t.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._+ -]{0,63}$', description: 'Minecraft version, e.g. 1.21.4' });
const Platform = t.String({ pattern: '^[A-Za-z]{1,32}$', description: `plugin platform: ${PLUGIN_PLATFORM_NAMES.join(', ')}` });
const ProjectRef = t.String({ pattern: '^[A-Za-z0-9_.-]{1,64}$' });
const DEFAULT_LIMIT = 20;

export function pluginRoutes(software: SoftwareServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/plugins/search',
      auth: 'admin',
      permission: 'svc.dashboard.groups.view',
      tag: 'plugins',
      summary: 'Search Modrinth and Hangar for plugins (for a Minecraft version and platform); a repository that cannot be reached is listed in `unavailable` while the other answers; 503 SERVICE_UNAVAILABLE naming both when neither can be reached',
      query: t.Object({
        q: t.Optional(t.String({ maxLength: 100, description: 'search words; empty lists popular plugins' })),
        mcVersion: t.Optional(McVersion),
        platform: t.Optional(Platform),
        limit: t.Optional(t.Integer({ minimum: 1, maximum: 50, description: `per repository, default ${DEFAULT_LIMIT}` })),
      }),
      response: { 200: PluginSearchResultSchema, 400: ErrorBodySchema, 503: ErrorBodySchema },
      handler: ({ query }) =>
        software.searchPlugins({ q: query.q ?? '', mcVersion: query.mcVersion, platform: pluginPlatform(query.platform ?? 'paper'), limit: query.limit ?? DEFAULT_LIMIT }),
    }),
    defineRoute({
      method: 'POST',
      path: '/api/plugins/install',
      auth: 'admin',
      permission: 'svc.dashboard.groups.edit',
      tag: 'plugins',
      summary: "Download a plugin's version for the Minecraft version and platform, with its required dependencies, into the plugins/ of the group's first template",
      body: t.Object({
        source: t.Union(PLUGIN_SOURCES.map((s) => t.Literal(s))),
        slug: t.Optional(ProjectRef),
        projectId: t.Optional(ProjectRef),
        group: t.String({ pattern: GROUP_NAME }),
        mcVersion: t.Optional(McVersion),
        platform: t.Optional(Platform),
      }),
      response: {
        200: t.Object({ success: t.Literal(true), message: t.String(), installed: t.Array(InstalledPluginSchema) }),
        400: ErrorBodySchema,
        404: ErrorBodySchema,
        503: ErrorBodySchema,
      },
      handler: async ({ body }) => {
        const result = await software.installPlugin(body);
        return { success: true as const, message: result.message, installed: result.installed };
      },
    }),
  ];
}

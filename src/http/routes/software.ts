import { t } from '../t';
import { requireSoftware, SoftwareListEntrySchema, softwareList } from '../../core/software/kinds';
import type { SoftwareServices } from '../../core/software/software-services';
import { LoaderVersionListSchema, VersionListSchema } from '../../core/software/upstream/model';
import { defineRoute, type AnyRoute } from '../route';
import { ErrorBodySchema } from '../schemas';

/** Any case (`paper` finds PAPER); anything else known by shape is SOFTWARE_UNKNOWN (404), not a validation error. */
const TypeParam = t.Object({ type: t.String({ pattern: '^[A-Za-z_]{1,32}$', description: 'software kind, any case (see GET /api/software)' }) });
/** Game versions as the loaders' upstreams name them, snapshots included (`1.21.4`, `24w14a`). */
const McVersion = t.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._+ -]{0,63}$', description: 'Minecraft version, e.g. 1.21.4' });

export function softwareRoutes(software: SoftwareServices): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/software',
      auth: 'admin',
      permission: 'svc.dashboard.groups.view',
      tag: 'software',
      summary: 'The server software kinds with their capability flags, as `{software:[…]}` (the dashboard reads the wrapper)',
      response: { 200: t.Object({ software: t.Array(SoftwareListEntrySchema) }) },
      handler: () => ({ software: softwareList() }),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/software/:type/versions',
      auth: 'admin',
      permission: 'svc.dashboard.groups.view',
      tag: 'software',
      summary: "Stable and snapshot versions of a kind, newest first, from its upstream (cached 10 min); CUSTOM has none; 503 when the upstream cannot be reached",
      params: TypeParam,
      response: { 200: VersionListSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, 503: ErrorBodySchema },
      handler: ({ params }) => software.versions(requireSoftware(params.type).name),
    }),
    defineRoute({
      method: 'GET',
      path: '/api/software/:type/modloader-versions',
      auth: 'admin',
      permission: 'svc.dashboard.groups.view',
      tag: 'software',
      summary: 'Loader versions of FABRIC, FORGE or NEOFORGE for one Minecraft version, newest first (cached 10 min); 400 for other kinds',
      params: TypeParam,
      query: t.Object({ mcVersion: McVersion }),
      response: { 200: LoaderVersionListSchema, 400: ErrorBodySchema, 404: ErrorBodySchema, 503: ErrorBodySchema },
      handler: ({ params, query }) => software.loaderVersions(requireSoftware(params.type).name, query.mcVersion),
    }),
  ];
}

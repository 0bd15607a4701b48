import { t } from 'elysia';
import { SoftwareListEntrySchema, softwareList } from '../../core/software/kinds';
import { defineRoute, type AnyRoute } from '../route';

export function softwareRoutes(): AnyRoute[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/software',
      auth: 'admin',
      tag: 'software',
      summary: 'The server software kinds with their capability flags',
      response: { 200: t.Array(SoftwareListEntrySchema) },
      handler: () => softwareList(),
    }),
  ];
}

import { moduleEvents, R } from '../../events/module-events';

/** The resource pack module's events (the second spec document). */
export const RESOURCEPACKS_EVENTS = moduleEvents('resourcepacks', {
  RESOURCE_PACK_CREATED: { keys: { id: R, name: R, source: R } },
  RESOURCE_PACK_DELETED: { keys: { id: R, name: R } },
  // Audited under the pack (scope and target are in the details).
  RESOURCE_PACK_ASSIGNED: { keys: { packId: R, scope: R, target: R }, auditTarget: 'packId' },
  RESOURCE_PACK_UNASSIGNED: { keys: { packId: R, scope: R, target: R }, auditTarget: 'packId' },
  // Players' telemetry: frequent, never audited.
  RESOURCE_PACK_STATUS: { keys: { player: R, pack: R, status: R }, audit: 'never' },
});

type ResourcePacksEvents = typeof RESOURCEPACKS_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends ResourcePacksEvents {}
}

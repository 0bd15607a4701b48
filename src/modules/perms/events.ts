import { moduleEvents, R } from '../../events/module-events';

/** The permissions module's events (controller spec, module events), audited with their caller. */
export const PERMS_EVENTS = moduleEvents('perms', {
  PERMISSION_GROUP_CREATED: { keys: { group: R } },
  PERMISSION_GROUP_UPDATED: { keys: { group: R } },
  PERMISSION_GROUP_DELETED: { keys: { group: R } },
  PLAYER_PERMISSIONS_UPDATED: { keys: { uuid: R, player: R } },
  PERMISSION_TRACK_CREATED: { keys: { track: R } },
  PERMISSION_TRACK_DELETED: { keys: { track: R } },
  PLAYER_PROMOTED: { keys: { uuid: R, player: R, track: R, newGroup: R } },
  PLAYER_DEMOTED: { keys: { uuid: R, player: R, track: R, newGroup: R } },
});

type PermsEvents = typeof PERMS_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends PermsEvents {}
}

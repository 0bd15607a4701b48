import { moduleEvents, O, R } from '../../events/module-events';

/** The punishments module's events, audited under the punished player's name (the id and the rest are in the details). */
export const PUNISHMENTS_EVENTS = moduleEvents('punishments', {
  PUNISHMENT_ISSUED: {
    keys: { id: R, type: R, target: R, targetUuid: R, issuer: R, reason: R, expiresAt: R, scope: R, scopeTarget: O, kickMessage: O },
    auditTarget: 'target',
  },
  PUNISHMENT_REVOKED: { keys: { id: R, type: R, target: R, revokedBy: R, reason: R }, auditTarget: 'target' },
  PUNISHMENT_EXPIRED: { keys: { id: R, type: R, target: R }, auditTarget: 'target' },
});

type PunishmentsEvents = typeof PUNISHMENTS_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends PunishmentsEvents {}
}

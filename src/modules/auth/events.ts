import { moduleEvents, R } from '../../events/module-events';

/**
 * The auth module's events. The dashboard login events are core's (the auth document puts them
 * on the core bus). The magic-link delivery carries a live login link: never audited, and only
 * the proxies (which deliver it) and the master token hear it.
 */
export const AUTH_EVENTS = moduleEvents('auth', {
  AUTH_MAGIC_LINK_DELIVERY: { keys: { uuid: R, name: R, url: R, ttl: R, expiresAt: R }, audit: 'never', audience: 'proxy' },
});

type AuthEvents = typeof AUTH_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends AuthEvents {}
}

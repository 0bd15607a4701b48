import { moduleEvents, R } from '../../events/module-events';

/** The display module's events. */
export const DISPLAY_EVENTS = moduleEvents('display', {
  DISPLAY_UPDATED: { keys: { group: R } },
});

type DisplayEvents = typeof DISPLAY_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends DisplayEvents {}
}

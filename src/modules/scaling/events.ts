import { moduleEvents, R } from '../../events/module-events';

/** The smart scaling module's decisions as events (also stored: GET /api/scaling/decisions); never audited. */
export const SCALING_EVENTS = moduleEvents('scaling', {
  SMART_SCHEDULE: { keys: { group: R, rule: R, started: R, min: R }, audit: 'never' },
  SMART_WARMUP: { keys: { group: R, rule: R, started: R, min: R }, audit: 'never' },
  SMART_PREDICTION: { keys: { group: R, predicted: R, started: R, samples: R }, audit: 'never' },
});

type ScalingEvents = typeof SCALING_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends ScalingEvents {}
}

import { moduleEvents, R } from '../../events/module-events';

/**
 * The smart scaling module's decisions as events (also stored: GET /api/scaling/decisions; never
 * audited), and a group's schedule saved through the API (audited with who saved it).
 */
export const SCALING_EVENTS = moduleEvents('scaling', {
  SMART_SCHEDULE_SAVED: { keys: { group: R, enabled: R, rules: R }, audit: 'always' },
  SMART_SCHEDULE: { keys: { group: R, rule: R, started: R, min: R }, audit: 'never' },
  SMART_WARMUP: { keys: { group: R, rule: R, started: R, min: R }, audit: 'never' },
  SMART_PREDICTION: { keys: { group: R, predicted: R, started: R, samples: R }, audit: 'never' },
});

type ScalingEvents = typeof SCALING_EVENTS;
declare module '../../events/catalogue' {
  interface ModuleEventCatalogue extends ScalingEvents {}
}

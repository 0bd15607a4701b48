import { Type, type Static } from '@sinclair/typebox';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** What `GET /api/stress` shows and every stress mutation answers with. */
export const StressStatusSchema = Type.Object({
  active: Type.Boolean(),
  group: Type.Union([Type.String(), Type.Null()], { description: 'the backend group under test; null when none runs or when the test spans every backend group' }),
  currentPlayers: Count('simulated players placed on the services now'),
  targetPlayers: Count('where the ramp is heading'),
  totalCapacity: Count("the sum of the READY backends' group maxPlayers"),
  overflow: Count('players of the current ramp step that found no room'),
  elapsedSeconds: Count('since the test started'),
  services: Type.Record(Type.String(), Count('simulated players'), { description: 'simulated players per READY backend, by service name' }),
  proxyServices: Type.Record(Type.String(), Count('the backend total'), { description: 'per READY proxy, the backend total it would carry' }),
});
export type StressStatus = Static<typeof StressStatusSchema>;

/** Largest simulated player count a test may ask for. */
export const STRESS_MAX_PLAYERS = 100_000;
/** Longest ramp, in seconds (a day). */
export const STRESS_MAX_RAMP_SECONDS = 86_400;

import { Type, type Static } from '@sinclair/typebox';

const Count = (description: string) => Type.Integer({ minimum: 0, description });

/** What `GET /api/stress` shows and every stress mutation answers with. */
export const StressStatusSchema = Type.Object({
  active: Type.Boolean(),
  group: Type.Union([Type.String(), Type.Null()], { description: 'the backend group under test; null when none runs' }),
  currentPlayers: Count('simulated players placed on the services now'),
  targetPlayers: Count('where the ramp is heading'),
  totalCapacity: Count('READY backends × the group maxPlayers'),
  overflow: Count('players of the current ramp step that found no room'),
  elapsedSeconds: Count('since the test started'),
  services: Type.Array(Type.Object({ name: Type.String(), players: Count('simulated players'), capacity: Count('the group maxPlayers') })),
  proxyServices: Type.Array(Type.Object({ name: Type.String(), players: Count('the backend total this proxy would carry') })),
});
export type StressStatus = Static<typeof StressStatusSchema>;

/** Largest simulated player count a test may ask for. */
export const STRESS_MAX_PLAYERS = 100_000;
/** Longest ramp, in seconds (a day). */
export const STRESS_MAX_RAMP_SECONDS = 86_400;

import type { Actor } from '../../events/catalogue';

/**
 * Who makes a change: the actor events and the module's audit name, and whether they hold
 * admin (`holdsAdmin` of src/http/auth.ts: the master token, a JWT with the `admin` scope, an
 * admin dashboard session; the controller's own consoles). Only an admin may hand out what
 * passes `svc.dashboard.admin` (escalation.ts); every other change is the same for both.
 */
export interface Author {
  actor: Actor;
  admin: boolean;
}

/** The module itself: first-start groups and the expiry sweep. */
export const SYSTEM: Author = { actor: 'system', admin: true };

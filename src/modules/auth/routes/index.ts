import type { AnyRoute } from '../../../http/route';
import type { AuthRuntime } from '../runtime';
import { loginRoutes } from './login';
import { profileRoutes } from './profile';
import { sessionRoutes } from './sessions';

/** Every route of the dashboard-login module (`/api/auth/*`, `/api/profile/totp/*`). */
export function authRoutes(runtime: AuthRuntime): AnyRoute[] {
  return [...loginRoutes(runtime), ...sessionRoutes(runtime), ...profileRoutes(runtime)];
}

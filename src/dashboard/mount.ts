import { NotFoundError, type AnyElysia } from 'elysia';
import { splitUrl } from '../http/request';
import { dashboardFiles } from './files';
import { dashboardAnswer, isDashboardPath } from './serve';

/**
 * The dashboard on the API's Elysia app: `GET /` and the app's page paths (serve.ts APP_PAGES)
 * answer its page (it routes in the browser), `/assets/<name>-<hash>.<ext>` its files. The
 * API's routes are more specific than the wildcard, so they are untouched; any other path, or an
 * asset that does not exist, is still ROUTE_NOT_FOUND. Each request spends the public rate
 * budget (`admit`), like a path nothing answers, so a scan is slowed down the same way.
 */
export function mountDashboard(app: AnyElysia, admit: (request: Request) => unknown, features: readonly string[] = []): void {
  const answer = async ({ request }: { request: Request }) => {
    const { pathname } = splitUrl(request.url);
    if (!isDashboardPath(pathname)) throw new NotFoundError();
    await admit(request);
    const response = dashboardAnswer(await dashboardFiles(), pathname, features);
    if (!response) throw new NotFoundError();
    return response;
  };
  app.get('/', answer as never).get('/*', answer as never);
}

import type { ApiDeps } from '../../shared/src/composition/api';
import { createAppShell } from './app-shell';
import { type RouteOptions, registerRoutes } from './routes';

export { API_MAX_BODY_BYTES, type AppEnv } from './app-shell';

/**
 * The whole HTTP API as one Hono app (served by API Gateway on AWS, by the local gateway in `npm start`,
 * and in-process by tests through `app.request()`).
 */
export function createApp(getDeps: () => Promise<ApiDeps>, opts: RouteOptions = {}) {
  return createAppShell(getDeps, (app) => registerRoutes(app, opts), opts.extraRoutes?.publicRoutes);
}

import type { ApiDeps } from '../../shared/src/composition/api';
import { createAppShell } from './app-shell';
import { type ChatRouteOptions, registerChatRoutes } from './routes/chat';

/**
 * The streaming function's app (functions/api-stream.ts): the API's shell (session guard, headers, errors)
 * around `POST /api/chat` alone. CloudFront sends only `/api/chat` to that function
 * (infra/lib/edge/web-distribution.ts), and so does the local gateway; every other path answers the API's
 * usual 404. Not importing the other route families keeps their handlers and zod contracts out of this
 * function's cold start (issue 16).
 */
export function createChatApp(getDeps: () => Promise<ApiDeps>, opts: ChatRouteOptions = {}) {
  return createAppShell(getDeps, (app) => registerChatRoutes(app, opts));
}

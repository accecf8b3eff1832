import type { Hono } from 'hono';
import type { AppEnv } from '../app';
import { registerPushRoutes } from '../push-routes';
import { registerAdminRoutes } from './admin';
import { type ChatRouteOptions, registerChatRoutes } from './chat';
import { registerConversationRoutes } from './conversations';
import { registerMediaRoutes } from './media';
import { registerMemoryRoutes } from './memory';
import { registerNotificationChoiceRoutes } from './notification-choices';
import { registerPreferenceRoutes } from './preferences';
import { registerResearchRoutes } from './research';
import { registerRetryRoutes } from './retry';
import { registerSessionRoutes } from './session';
import { registerWorkspaceFileRoutes } from './workspace-files';

export interface RouteOptions extends ChatRouteOptions {
  /** Routes only some stacks have: the local stack adds the demo team's dev sign-in (scripts/local/dev-routes.ts). */
  extraRoutes?: { register: (app: Hono<AppEnv>) => void; publicRoutes: string[] };
}

/**
 * Every /api route. Push subscription routes belong to the push feature: its `registerPushRoutes(app)`
 * (functions/api/push-routes.ts) is called here, next to the others, and the session guard covers it.
 */
export function registerRoutes(app: Hono<AppEnv>, opts: RouteOptions = {}) {
  registerSessionRoutes(app);
  registerConversationRoutes(app);
  registerRetryRoutes(app);
  registerChatRoutes(app, opts);
  registerAdminRoutes(app);
  registerMemoryRoutes(app);
  registerWorkspaceFileRoutes(app);
  registerMediaRoutes(app);
  registerPreferenceRoutes(app);
  registerNotificationChoiceRoutes(app);
  registerResearchRoutes(app);
  registerPushRoutes(app);
  opts.extraRoutes?.register(app);
}

import type { Hono } from 'hono';
import type { AppEnv } from '../app';
import { type LazyRouteGroup, registerLazyRoutes } from '../lazy-routes';
import { type ChatRouteOptions, registerChatRoutes } from './chat';
import { registerConversationRoutes } from './conversations';
import { registerRetryRoutes } from './retry';
import { registerSessionRoutes } from './session';

export interface RouteOptions extends ChatRouteOptions {
  /** Routes only some stacks have: the local stack adds the demo team's dev sign-in (scripts/local/dev-routes.ts). */
  extraRoutes?: { register: (app: Hono<AppEnv>) => void; publicRoutes: string[] };
}

/**
 * Route families a cold start rarely serves first: each module (handlers, zod contracts, use cases) is a
 * chunk of its own, imported on the family's first request (issue 16; functions/api/lazy-routes.ts). The
 * inbox's own routes — session, conversations and cards, retry, chat — stay eager: they are what the PWA
 * calls on opening. A route added to one of these modules must be added to its list too (a test checks).
 */
export const LAZY_ROUTE_GROUPS: readonly LazyRouteGroup[] = [
  {
    name: 'research',
    routes: [
      'POST /api/research',
      'GET /api/research/:id',
      'PUT /api/research/:id/plan',
      'POST /api/research/:id/approve',
      'POST /api/research/:id/replan',
      'POST /api/research/:id/cancel',
    ],
    load: async () => (await import('./research')).registerResearchRoutes,
  },
  {
    name: 'conversation-admin',
    routes: [
      'GET /api/admin/conversations/:id/export',
      'GET /api/admin/conversations/:id/deletion',
      'POST /api/admin/conversations/:id/delete',
      'GET /api/admin/deletions',
    ],
    load: async () => (await import('./conversation-admin')).registerConversationAdminRoutes,
  },
  {
    name: 'push',
    routes: [
      'GET /api/push/public-key',
      'POST /api/push/subscriptions',
      'DELETE /api/push/subscriptions',
      'POST /api/push/test',
    ],
    load: async () => (await import('../push-routes')).registerPushRoutes,
  },
  {
    name: 'workspace-files',
    routes: [
      'GET /api/workspace/files',
      'GET /api/workspace/file',
      'PUT /api/workspace/file',
      'DELETE /api/workspace/file',
      'POST /api/workspace/diff',
      'POST /api/admin/policy/try',
    ],
    load: async () => (await import('./workspace-files')).registerWorkspaceFileRoutes,
  },
  {
    name: 'preferences',
    routes: ['GET /api/me/preferences', 'PUT /api/me/preferences'],
    load: async () => (await import('./preferences')).registerPreferenceRoutes,
  },
  {
    name: 'notification-choices',
    routes: ['GET /api/me/notifications', 'PUT /api/me/notifications'],
    load: async () => (await import('./notification-choices')).registerNotificationChoiceRoutes,
  },
  {
    name: 'admin',
    routes: ['GET /api/admin/instructions', 'PUT /api/admin/instructions', 'GET /api/admin/vendor-status'],
    load: async () => (await import('./admin')).registerAdminRoutes,
  },
  {
    name: 'memory',
    routes: ['GET /api/memory/history'],
    load: async () => (await import('./memory')).registerMemoryRoutes,
  },
  {
    name: 'media',
    routes: ['GET /api/media/:id'],
    load: async () => (await import('./media')).registerMediaRoutes,
  },
];

/**
 * Every /api route. Push subscription routes belong to the push feature: its `registerPushRoutes(app)`
 * (functions/api/push-routes.ts) is loaded here, next to the others, and the session guard covers it.
 */
export function registerRoutes(app: Hono<AppEnv>, opts: RouteOptions = {}) {
  registerSessionRoutes(app);
  registerConversationRoutes(app);
  registerRetryRoutes(app);
  registerChatRoutes(app, opts);
  for (const group of LAZY_ROUTE_GROUPS) registerLazyRoutes(app, group);
  opts.extraRoutes?.register(app);
}

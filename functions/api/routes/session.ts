import type { Hono } from 'hono';
import type { Config } from '../../../shared/src/config';
import { meResponse, publicConfigResponse } from '../../../shared/src/contracts/api';
import type { AppEnv } from '../app';
import { currentUser, reply } from '../http';

/** Dev sign-in exists only on a local stack that generated a dev key; everywhere else it is a plain 404. */
export function devSignInEnabled(config: Config): config is Config & { DEV_AUTH_PRIVATE_KEY: string } {
  return config.STAGE === 'local' && Boolean(config.DEV_AUTH_PRIVATE_KEY);
}

/** Who is signed in, and what the PWA needs before sign-in. The dev sign-in routes belong to the local stack. */
export function registerSessionRoutes(app: Hono<AppEnv>) {
  app.get('/api/me', (c) => reply(c, meResponse, { user: currentUser(c) }));

  app.get('/api/config', (c) => {
    const config = c.get('core').config;
    return reply(c, publicConfigResponse, {
      stage: config.STAGE,
      teamName: config.TEAM_NAME,
      devSignIn: devSignInEnabled(config) && !config.CLERK_PUBLISHABLE_KEY,
      ...(config.CLERK_PUBLISHABLE_KEY ? { clerkPublishableKey: config.CLERK_PUBLISHABLE_KEY } : {}),
      ...(config.VAPID_PUBLIC_KEY ? { vapidPublicKey: config.VAPID_PUBLIC_KEY } : {}),
      // The push routes' own test (api/push-routes.ts): both halves of the key pair, or push is off.
      push: config.VAPID_PUBLIC_KEY && config.VAPID_PRIVATE_KEY ? 'on' : 'off',
      ...(config.LIVE_SOCKET_URL ? { liveUrl: config.LIVE_SOCKET_URL } : {}),
    });
  });
}

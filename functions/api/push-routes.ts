import type { Hono } from 'hono';
import type { ApiPushDeps } from '../../shared/src/composition/api';
import {
  subscribePushRequest,
  unsubscribePushRequest,
  vapidPublicKeyResponse,
} from '../../shared/src/contracts/push';
import { NotFoundError } from '../../shared/src/errors';
import { type RetryPolicy, sendNotification } from '../../shared/src/use-cases/send-notification';
import {
  sendTestNotification,
  testNotificationResponse,
} from '../../shared/src/use-cases/send-test-notification';
import { subscribePush, subscribePushResponse } from '../../shared/src/use-cases/subscribe-push';
import { unsubscribePush, unsubscribePushResponse } from '../../shared/src/use-cases/unsubscribe-push';
import type { AppEnv } from './app';
import { currentUser, readJson, reply } from './http';

/**
 * A test notification is sent while the person waits on the request (API Gateway gives up at 29 s), so it
 * gets one quick retry instead of the worker's patient backoff.
 */
const TEST_RETRY: RetryPolicy = {
  retries: 1,
  minTimeoutMs: 250,
  maxTimeoutMs: 1_000,
  maxRetryAfterMs: 2_000,
};
function pushOn(deps: ApiPushDeps): NonNullable<ApiPushDeps['push']> {
  if (!deps.push) {
    throw new NotFoundError(
      'Push notifications are off on this deployment: no VAPID key pair is configured (see `npm run vapid:keys`).',
    );
  }
  return deps.push;
}

/** Web Push for signed-in members: the public key, their devices' subscriptions, and a test push. */
export function registerPushRoutes(app: Hono<AppEnv>) {
  app.get('/api/push/public-key', (c) => {
    const { publicKey } = pushOn(c.get('core').push());
    return reply(c, vapidPublicKeyResponse, { publicKey });
  });

  app.post('/api/push/subscriptions', async (c) => {
    const user = currentUser(c);
    const body = await readJson(c, subscribePushRequest);
    const result = await subscribePush(c.get('core').push(), {
      userId: user.id,
      subscription: body.subscription,
      // The PWA sends navigator.userAgent; the header is the fallback for other clients.
      userAgent: body.userAgent ?? c.req.header('user-agent') ?? '',
      admin: user.isAdmin,
      email: user.email,
      ...(user.name ? { name: user.name } : {}),
    });
    return reply(c, subscribePushResponse, result, 201);
  });

  app.delete('/api/push/subscriptions', async (c) => {
    const user = currentUser(c);
    const body = await readJson(c, unsubscribePushRequest);
    const result = await unsubscribePush(c.get('core').push(), {
      userId: user.id,
      endpoint: body.endpoint,
    });
    return reply(c, unsubscribePushResponse, result);
  });

  app.post('/api/push/test', async (c) => {
    const user = currentUser(c);
    const core = c.get('core');
    const deps = core.push();
    const { sender } = pushOn(deps);
    const result = await sendTestNotification(
      {
        send: (input) =>
          sendNotification(
            { subscriptions: deps.subscriptions, sender, log: core.log, retry: TEST_RETRY },
            input,
          ),
        conversations: core.conversations,
      },
      { userId: user.id, ...(user.name ? { name: user.name } : {}) },
    );
    return reply(c, testNotificationResponse, result);
  });
}

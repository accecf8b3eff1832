import type * as z from 'zod';
import { apiError } from '../../../../shared/src/contracts/api';
import {
  type BrowserPushSubscription,
  browserPushSubscription,
  subscribePushResponse,
  testNotificationResponse,
  unsubscribePushResponse,
  vapidPublicKeyResponse,
} from '../../../../shared/src/contracts/push';
import { ApiError, type GetToken } from '../../lib/api';

/** The push routes, each answer parsed with its shared contract (the same ones the API replies with). */
export function createPushApi(getToken: GetToken) {
  async function request<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
  ): Promise<z.infer<S>> {
    const token = await getToken();
    const headers: Record<string, string> = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(path, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    if (!res.ok) {
      const text = await res.text().catch(() => '');
      let parsed: z.infer<typeof apiError> | undefined;
      try {
        parsed = apiError.parse(JSON.parse(text));
      } catch {
        parsed = undefined;
      }
      throw parsed
        ? new ApiError(res.status, parsed.error.code, parsed.error.message, parsed.error.details)
        : new ApiError(res.status, 'http_error', `The server answered ${res.status}.`);
    }
    return schema.parse(await res.json());
  }

  return {
    publicKey: () => request('GET', '/api/push/public-key', vapidPublicKeyResponse),
    subscribe: (subscription: BrowserPushSubscription, userAgent: string) =>
      request('POST', '/api/push/subscriptions', subscribePushResponse, { subscription, userAgent }),
    unsubscribe: (endpoint: string) =>
      request('DELETE', '/api/push/subscriptions', unsubscribePushResponse, { endpoint }),
    sendTest: () => request('POST', '/api/push/test', testNotificationResponse),
  };
}
export type PushApi = ReturnType<typeof createPushApi>;

/**
 * `PushSubscription.toJSON()` checked against the contract before it is sent: a browser that hands over a
 * subscription without keys (it happens with some privacy modes) gets a clear message, not a 400.
 */
export function toContract(subscription: PushSubscription): BrowserPushSubscription {
  const parsed = browserPushSubscription.safeParse(subscription.toJSON());
  if (!parsed.success) {
    throw new Error('This browser returned an incomplete push subscription; try another browser.');
  }
  return parsed.data;
}

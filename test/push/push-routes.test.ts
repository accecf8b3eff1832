import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import webpush from 'web-push';
import { createApp } from '../../functions/api/app';
import { type PushService, startPushService } from '../../scripts/emulators/push-service';
import { createDynamoPushSubscriptionStore } from '../../shared/src/adapters/dynamo/push-subscription-store';
import { buildApiDeps } from '../../shared/src/composition/api';
import type { Core } from '../../shared/src/composition/core';
import { type BrowserPushSubscription, pushNotificationPayload } from '../../shared/src/contracts/push';
import type { PushSubscriptionStore } from '../../shared/src/ports/push';
import { conversationTopic } from '../../shared/src/use-cases/send-notification';
import {
  TEST_CONVERSATION_ID,
  testNotificationResponse,
} from '../../shared/src/use-cases/send-test-notification';
import { subscribePushResponse } from '../../shared/src/use-cases/subscribe-push';
import { unsubscribePushResponse } from '../../shared/src/use-cases/unsubscribe-push';
import { ADMIN, type ApiHarness, MEMBER, startApiHarness, TEAM } from '../api/harness';
import { seedInboundSms } from '../api/seed';

/**
 * The push routes in-process (`app.request()`) against DynamoDB Local and the local push service, which
 * checks the VAPID JWT and decrypts what it receives. 404/410 cleanup and 429/5xx retries belong to
 * sendNotification and are covered by its own tests.
 */

const vapid = webpush.generateVAPIDKeys();
const SUBJECT = `mailto:ops@${TEAM}`;
const JO = `jo@${TEAM}`;

let h: ApiHarness;
let push: PushService;
let store: PushSubscriptionStore;
let sam: string;
let jo: string;
/** The `sub` of each session: the API stores subscriptions under the verified user id. */
let samId: string;
let joId: string;

beforeAll(async () => {
  push = await startPushService({ log: () => {} });
  h = await startApiHarness({
    env: { VAPID_PUBLIC_KEY: vapid.publicKey, VAPID_PRIVATE_KEY: vapid.privateKey, VAPID_SUBJECT: SUBJECT },
  });
  store = createDynamoPushSubscriptionStore({ doc: h.core.dynamo.doc, tableName: h.core.config.TABLE_NAME });
  sam = await h.token(MEMBER, { name: 'Sam Chen' });
  jo = await h.token(JO, { name: 'Jo Patel' });
  samId = await userId(sam);
  joId = await userId(jo);
}, 60_000);
afterAll(async () => {
  await h?.stop();
  await push?.stop();
});
beforeEach(async () => {
  push.reset();
  for (const s of await store.listActive()) await store.delete(s.endpoint);
});

async function userId(token: string): Promise<string> {
  const res = await h.call('GET', '/api/me', { token });
  return ((await res.json()) as { user: { id: string } }).user.id;
}

/** A "browser" subscribed with our VAPID key, as `PushSubscription.toJSON()` gives it. */
const device = (): BrowserPushSubscription =>
  push.createSubscription({ applicationServerKey: vapid.publicKey });

async function subscribe(token: string, subscription: BrowserPushSubscription, userAgent?: string) {
  return h.call('POST', '/api/push/subscriptions', {
    token,
    body: { subscription, ...(userAgent ? { userAgent } : {}) },
  });
}

async function errorOf(res: Response) {
  return ((await res.json()) as { error: { code: string; message: string } }).error;
}

describe('GET /api/push/public-key', () => {
  test('gives the VAPID public key the PWA subscribes with, and nothing else', async () => {
    const res = await h.call('GET', '/api/push/public-key', { token: sam });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ publicKey: vapid.publicKey });
    expect(JSON.stringify(body)).not.toContain(vapid.privateKey);
  });

  test('says clearly that push is off when no key pair is configured', async () => {
    // The same core without VAPID keys, as a deployment that never ran `npm run vapid:keys`.
    const off: Core = {
      ...h.core,
      config: { ...h.core.config, VAPID_PUBLIC_KEY: undefined, VAPID_PRIVATE_KEY: undefined },
    };
    const offApi = buildApiDeps(off);
    const app = createApp(async () => offApi);
    const call = (method: string, path: string) =>
      app.request(path, { method, headers: { authorization: `Bearer ${sam}` } });
    for (const [method, path] of [
      ['GET', '/api/push/public-key'],
      ['POST', '/api/push/test'],
    ] as const) {
      const res = await call(method, path);
      expect(res.status, `${method} ${path}`).toBe(404);
      expect((await errorOf(res)).message).toMatch(/push notifications are off.*VAPID/i);
    }
    // The public config says so first, so the PWA never asks the route (issue 19: no console 404).
    const config = await (await app.request('/api/config')).json();
    expect(config).toMatchObject({ push: 'off' });
    expect(config.vapidPublicKey).toBeUndefined();
    expect(await (await h.call('GET', '/api/config')).json()).toMatchObject({
      push: 'on',
      vapidPublicKey: vapid.publicKey,
    });
  });
});

describe('POST /api/push/subscriptions', () => {
  test('stores the device under the caller with its user agent and creation time', async () => {
    const sub = device();
    const before = Date.now();
    const res = await subscribe(sam, sub, 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)');
    expect(res.status).toBe(201);
    const { device: shown } = subscribePushResponse.parse(await res.json());
    expect(shown.endpoint).toBe(sub.endpoint);
    // The answer never echoes the device's keys.
    expect(JSON.stringify(shown)).not.toContain(sub.keys.auth);

    const [stored, ...rest] = await store.listByUser(samId);
    expect(rest).toEqual([]);
    expect(stored).toMatchObject({
      endpoint: sub.endpoint,
      keys: sub.keys,
      userId: samId,
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)',
    });
    expect(Date.parse(stored?.createdAt ?? '')).toBeGreaterThanOrEqual(before - 1000);
    expect(stored?.updatedAt).toBe(stored?.createdAt);
  });

  test('an admin’s device is marked admin (it gets alarm pushes); a member’s is not', async () => {
    const alex = await h.token(ADMIN, { name: 'Alex Rivera' });
    const a = device();
    const s = device();
    expect((await subscribe(alex, a)).status).toBe(201);
    expect((await subscribe(sam, s)).status).toBe(201);
    const byEndpoint = new Map((await store.listActive()).map((x) => [x.endpoint, x]));
    expect(byEndpoint.get(a.endpoint)?.admin).toBe(true);
    expect(byEndpoint.get(s.endpoint)?.admin).toBe(false);
  });

  test('falls back to the User-Agent header, and cuts an overlong one instead of refusing', async () => {
    const a = device();
    await h.call('POST', '/api/push/subscriptions', {
      token: sam,
      body: { subscription: a },
      headers: { 'user-agent': 'curl/8.5.0' },
    });
    const b = device();
    const res = await h.call('POST', '/api/push/subscriptions', {
      token: sam,
      body: { subscription: b },
      headers: { 'user-agent': `Mozilla/5.0 ${'x'.repeat(900)}` },
    });
    expect(res.status).toBe(201);
    const byEndpoint = new Map((await store.listByUser(samId)).map((s) => [s.endpoint, s]));
    expect(byEndpoint.get(a.endpoint)?.userAgent).toBe('curl/8.5.0');
    expect(byEndpoint.get(b.endpoint)?.userAgent).toHaveLength(512);
  });

  test('re-subscribing the same endpoint updates it: new keys, same creation time, one record', async () => {
    const first = device();
    await subscribe(sam, first, 'Chrome 126');
    const [created] = await store.listByUser(samId);
    await new Promise((r) => setTimeout(r, 20));

    // The browser rotated the keys of the same endpoint (e.g. after a pushsubscriptionchange).
    const rotated = { ...first, keys: device().keys };
    const res = await subscribe(sam, rotated, 'Chrome 127');
    expect(res.status).toBe(201);
    const all = await store.listActive();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({
      keys: rotated.keys,
      userAgent: 'Chrome 127',
      createdAt: created?.createdAt,
    });
    expect(all[0]?.updatedAt.localeCompare(created?.updatedAt ?? '')).toBeGreaterThan(0);
  });

  test('a shared device follows whoever turned push on last', async () => {
    const tablet = device();
    await subscribe(sam, tablet, 'Office tablet');
    await subscribe(jo, tablet, 'Office tablet');
    expect(await store.listByUser(samId)).toEqual([]);
    expect((await store.listByUser(joId)).map((s) => s.endpoint)).toEqual([tablet.endpoint]);
  });

  test('bad input is a 400 that names the field, and nothing is stored', async () => {
    const good = device();
    const cases: Array<[string, unknown, RegExp]> = [
      ['no body', undefined, /subscription/],
      ['no subscription', { userAgent: 'x' }, /subscription/],
      [
        'a plain-http endpoint',
        { subscription: { ...good, endpoint: 'http://push.example/abc' } },
        /endpoint/,
      ],
      ['not a URL', { subscription: { ...good, endpoint: 'push-me' } }, /endpoint/],
      ['a short p256dh', { subscription: { ...good, keys: { ...good.keys, p256dh: 'abc' } } }, /p256dh/],
      [
        'a non-base64url auth',
        { subscription: { ...good, keys: { ...good.keys, auth: `${'!'.repeat(22)}` } } },
        /auth/,
      ],
      ['no keys', { subscription: { endpoint: good.endpoint } }, /keys/],
      ['a user agent of 513 chars', { subscription: good, userAgent: 'x'.repeat(513) }, /userAgent/],
    ];
    for (const [name, body, field] of cases) {
      const res = await h.call('POST', '/api/push/subscriptions', { token: sam, ...(body ? { body } : {}) });
      expect(res.status, name).toBe(400);
      const error = await errorOf(res);
      expect(error.code, name).toBe('validation_failed');
      expect(error.message, name).toMatch(field);
    }
    const notJson = await h.call('POST', '/api/push/subscriptions', { token: sam, body: '{"subscription":' });
    expect(notJson.status).toBe(400);
    expect((await errorOf(notJson)).message).toMatch(/not valid JSON/);
    expect(await store.listActive()).toEqual([]);
  });
});

describe('DELETE /api/push/subscriptions', () => {
  test('removes the caller own device', async () => {
    const phone = device();
    const laptop = device();
    await subscribe(sam, phone);
    await subscribe(sam, laptop);
    const res = await h.call('DELETE', '/api/push/subscriptions', {
      token: sam,
      body: { endpoint: phone.endpoint },
    });
    expect(res.status).toBe(200);
    expect(unsubscribePushResponse.parse(await res.json())).toEqual({ removed: true });
    expect((await store.listByUser(samId)).map((s) => s.endpoint)).toEqual([laptop.endpoint]);

    // Again: already gone is not an error (the browser may retry after a lost answer).
    const again = await h.call('DELETE', '/api/push/subscriptions', {
      token: sam,
      body: { endpoint: phone.endpoint },
    });
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ removed: false });
  });

  test("cannot remove another member's device", async () => {
    const josPhone = device();
    await subscribe(jo, josPhone);
    const res = await h.call('DELETE', '/api/push/subscriptions', {
      token: sam,
      body: { endpoint: josPhone.endpoint },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ removed: false });
    expect((await store.listByUser(joId)).map((s) => s.endpoint)).toEqual([josPhone.endpoint]);
  });

  test('bad input is a 400 that names the field', async () => {
    for (const body of [{}, { endpoint: 'ftp://push.example/x' }, { endpoint: 42 }]) {
      const res = await h.call('DELETE', '/api/push/subscriptions', { token: sam, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await errorOf(res)).message).toMatch(/endpoint/);
    }
  });
});

describe('POST /api/push/test', () => {
  test('reaches every device of the caller and only theirs, decrypted at the push service', async () => {
    const { conversation } = await seedInboundSms(h.core);
    const phone = device();
    const laptop = device();
    const josPhone = device();
    await subscribe(sam, phone, 'iPhone');
    await subscribe(sam, laptop, 'Firefox');
    await subscribe(jo, josPhone, 'Pixel');

    const res = await h.call('POST', '/api/push/test', { token: sam });
    expect(res.status).toBe(200);
    const counts = testNotificationResponse.parse(await res.json());
    expect(counts).toEqual({
      subscriptions: 2,
      delivered: 2,
      removed: 0,
      failed: 0,
      conversationId: conversation.id,
    });

    expect(push.deliveries(josPhone.endpoint)).toEqual([]);
    for (const endpoint of [phone.endpoint, laptop.endpoint]) {
      const [got, ...more] = push.deliveries(endpoint);
      expect(more).toEqual([]);
      // An alert: normal urgency, a short life (web-push's default would be four weeks), a per-conversation Topic.
      expect(got).toMatchObject({ ttl: 900, urgency: 'normal', topic: conversationTopic(conversation.id) });
      expect(got?.vapid).toMatchObject({ subject: SUBJECT, publicKey: vapid.publicKey });
      const payload = pushNotificationPayload.parse(got?.payload);
      expect(payload).toMatchObject({
        v: 1,
        kind: 'alert',
        title: 'Switchboard test notification',
        conversationId: conversation.id,
        url: `/chat?id=${conversation.id}`,
        tag: conversationTopic(conversation.id),
        requireInteraction: false,
      });
      expect(payload.body).toBe(
        'Sam, notifications work on this device. Tap to open the latest conversation.',
      );
      expect(Buffer.byteLength(got?.rawPayload ?? '')).toBeLessThan(3000);
    }
  });

  test('with no device subscribed it answers zero counts and sends nothing', async () => {
    const res = await h.call('POST', '/api/push/test', { token: jo });
    expect(res.status).toBe(200);
    expect(testNotificationResponse.parse(await res.json())).toMatchObject({
      subscriptions: 0,
      delivered: 0,
      failed: 0,
    });
    expect(push.attempts()).toEqual([]);
  });

  test('a device the push service refuses is counted as failed, not hidden', async () => {
    // Subscribed with another server's key: the push service refuses our VAPID signature (403).
    const stale = push.createSubscription({ applicationServerKey: webpush.generateVAPIDKeys().publicKey });
    const good = device();
    await subscribe(sam, stale);
    await subscribe(sam, good);
    const res = await h.call('POST', '/api/push/test', { token: sam });
    expect(testNotificationResponse.parse(await res.json())).toMatchObject({
      subscriptions: 2,
      delivered: 1,
      failed: 1,
    });
    expect(push.attempts(stale.endpoint).map((a) => a.status)).toEqual([403]);
    expect(push.deliveries(good.endpoint)).toHaveLength(1);
  });

  test('with an empty inbox the notification still carries a valid deep link', async () => {
    // A core on a fresh, empty table: no conversation to point at.
    const empty = await import('../helpers').then((m) => m.freshTable('push-empty'));
    const core: Core = {
      ...h.core,
      config: { ...h.core.config, TABLE_NAME: empty.tableName },
      conversations: { ...h.core.conversations, list: async () => [] },
    };
    const api = buildApiDeps(core);
    const app = createApp(async () => api);
    const sub = device();
    const post = (path: string, body?: unknown) =>
      app.request(path, {
        method: 'POST',
        headers: { authorization: `Bearer ${sam}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
    expect((await post('/api/push/subscriptions', { subscription: sub })).status).toBe(201);
    const res = await post('/api/push/test');
    expect(testNotificationResponse.parse(await res.json())).toMatchObject({
      delivered: 1,
      conversationId: TEST_CONVERSATION_ID,
    });
    const payload = pushNotificationPayload.parse(push.deliveries(sub.endpoint)[0]?.payload);
    expect(payload.url).toBe(`/chat?id=${TEST_CONVERSATION_ID}`);
    expect(payload.body).toBe('Sam, notifications work on this device.');
    empty.raw.destroy();
  });
});

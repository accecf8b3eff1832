import { createServer } from 'node:net';
import { importJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import webpush from 'web-push';
import { type PushService, startPushService } from '../../../scripts/emulators/push-service';
import { vapidEnvLines } from '../../../scripts/vapid-keys';
import { freshTable } from '../../../test/helpers';
import {
  type BrowserPushSubscription,
  browserPushSubscription,
  pushNotificationPayload,
} from '../contracts/push';
import { ConfigError } from '../errors';
import type { PushLog } from '../ports/push';
import { conversationTopic, MAX_PAYLOAD_BYTES, sendNotification } from '../use-cases/send-notification';
import { createDynamoPushSubscriptionStore } from './dynamo/push-subscription-store';
import {
  createWebPushSender,
  parseRetryAfter,
  type VapidDetails,
  vapidDetailsFromConfig,
} from './web-push-sender';

const silent: PushLog = { info() {}, warn() {}, error() {} };
const fastRetry = { retries: 3, minTimeoutMs: 5, maxTimeoutMs: 20, maxRetryAfterMs: 50 };

let push: PushService;
let vapid: VapidDetails;

beforeAll(async () => {
  push = await startPushService();
  // The keys come from the same function `npm run vapid:keys` prints.
  const { publicKey, privateKey, text } = vapidEnvLines('mailto:ops@oakproperties.example');
  expect(text).toContain(`VAPID_PUBLIC_KEY=${publicKey}`);
  expect(text).toContain('VAPID_PRIVATE_KEY is a SECRET');
  vapid = { subject: 'mailto:ops@oakproperties.example', publicKey, privateKey };
});

afterAll(async () => {
  await push?.stop();
});

beforeEach(() => push.reset());

describe('web-push sender against the local push service', () => {
  test('delivers an encrypted payload the device can read, with TTL, Urgency and Topic', async () => {
    const sub = push.createSubscription({ applicationServerKey: vapid.publicKey });
    const sender = createWebPushSender({ vapid });
    const outcome = await sender.send(sub, JSON.stringify({ hello: 'wörld 👋' }), {
      ttlSeconds: 120,
      urgency: 'low',
      topic: 'conv-abc_123',
    });
    expect(outcome).toEqual({ kind: 'delivered', status: 201 });
    const [got] = push.deliveries(sub.endpoint);
    expect(got).toMatchObject({
      payload: { hello: 'wörld 👋' },
      ttl: 120,
      urgency: 'low',
      topic: 'conv-abc_123',
      vapid: { subject: 'mailto:ops@oakproperties.example', publicKey: vapid.publicKey },
    });
    // web-push signs for 12 h; the service accepted it, so it was within the 24 h ceiling.
    expect(got!.vapid.expiresAt * 1000).toBeGreaterThan(Date.now());
  });

  test('a sender with the wrong VAPID key is refused (403) and that is not retryable', async () => {
    const sub = push.createSubscription({ applicationServerKey: vapid.publicKey });
    const other = webpush.generateVAPIDKeys();
    const sender = createWebPushSender({ vapid: { ...vapid, ...other } });
    const outcome = await sender.send(sub, '{}', { ttlSeconds: 60, urgency: 'normal' });
    expect(outcome).toMatchObject({ kind: 'failed', status: 403 });
    expect(push.deliveries(sub.endpoint)).toEqual([]);
  });

  describe('the push service checks the VAPID JWT like a real one', () => {
    async function post(sub: BrowserPushSubscription, authorization: string) {
      const details = webpush.generateRequestDetails(sub, 'x', {
        vapidDetails: vapid,
        TTL: 60,
      });
      const headers = { ...details.headers, Authorization: authorization } as Record<string, string>;
      delete headers['Content-Length'];
      return fetch(sub.endpoint, { method: 'POST', headers, body: new Uint8Array(details.body) });
    }

    async function signed(claims: { aud: string; exp: number; sub?: string }) {
      const point = Buffer.from(vapid.publicKey, 'base64url');
      const key = await importJWK(
        {
          kty: 'EC',
          crv: 'P-256',
          d: vapid.privateKey,
          x: point.subarray(1, 33).toString('base64url'),
          y: point.subarray(33).toString('base64url'),
        },
        'ES256',
      );
      const jwt = await new SignJWT({ sub: claims.sub ?? vapid.subject })
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT' })
        .setAudience(claims.aud)
        .setExpirationTime(claims.exp)
        .sign(key);
      return `vapid t=${jwt}, k=${vapid.publicKey}`;
    }

    const now = () => Math.floor(Date.now() / 1000);

    test('accepts a correct JWT built by hand (the checks below are not vacuous)', async () => {
      const sub = push.createSubscription();
      const res = await post(sub, await signed({ aud: push.origin, exp: now() + 3600 }));
      expect(res.status).toBe(201);
    });

    test.each([
      ['wrong audience', /aud/, async () => signed({ aud: 'https://fcm.googleapis.com', exp: now() + 3600 })],
      ['expired', /exp/, async () => signed({ aud: push.origin, exp: now() - 60 })],
      [
        'exp more than 24 h ahead',
        /24 hours/,
        async () => signed({ aud: push.origin, exp: now() + 25 * 3600 }),
      ],
      ['no contact subject', /sub/, async () => signed({ aud: push.origin, exp: now() + 3600, sub: 'ops' })],
      [
        'tampered signature',
        /signature/,
        async () => {
          const good = await signed({ aud: push.origin, exp: now() + 3600 });
          return good.replace(/t=([^.]+)\.([^.]+)\.([^,]+)/, (_m, h, p, s: string) => {
            const flipped = s.startsWith('A') ? `B${s.slice(1)}` : `A${s.slice(1)}`;
            return `t=${h}.${p}.${flipped}`;
          });
        },
      ],
      ['missing header', /missing/, async () => ''],
    ])('refuses a JWT with %s (401)', async (_name, why, auth) => {
      const sub = push.createSubscription();
      const res = await post(sub, await auth());
      expect(res.status).toBe(401);
      expect(push.attempts(sub.endpoint)[0]?.reason).toMatch(why);
      expect(push.deliveries(sub.endpoint)).toEqual([]);
    });
  });

  test('the local stack can create devices over HTTP and read the verbose, decrypted log', async () => {
    const lines: string[] = [];
    const local = await startPushService({ verbose: true, log: (l) => lines.push(l) });
    try {
      const res = await fetch(`${local.url}/subscriptions`, {
        method: 'POST',
        body: JSON.stringify({ applicationServerKey: vapid.publicKey }),
      });
      expect(res.status).toBe(201);
      const sub = browserPushSubscription.parse(await res.json());
      const outcome = await createWebPushSender({ vapid }).send(sub, '{"title":"hi"}', {
        ttlSeconds: 60,
        urgency: 'high',
      });
      expect(outcome.kind).toBe('delivered');
      const deliveries = (await (await fetch(`${local.url}/deliveries`)).json()) as { payload: unknown }[];
      expect(deliveries.map((d) => d.payload)).toEqual([{ title: 'hi' }]);
      expect(lines.join('\n')).toMatch(/delivered to .* urgency=high .*\{"title":"hi"\}/);
      // The endpoint's capability token is not printed whole.
      expect(lines.join('\n')).not.toContain(sub.endpoint.split('/').pop());
    } finally {
      await local.stop();
    }
  });

  test('an unreachable push service is a retryable outcome', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const sender = createWebPushSender({ vapid, timeoutMs: 2000 });
    const sub = { ...push.createSubscription(), endpoint: `http://127.0.0.1:${port}/push/nobody` };
    const outcome = await sender.send(sub, '{}', { ttlSeconds: 60, urgency: 'normal' });
    expect(outcome.kind).toBe('retryable');
  });

  test('invalid VAPID details are a ConfigError that does not echo the key', () => {
    const bad = { ...vapid, privateKey: `${vapid.privateKey}AAAA` };
    expect(() => createWebPushSender({ vapid: bad })).toThrow(ConfigError);
    try {
      createWebPushSender({ vapid: bad });
    } catch (e) {
      expect(String((e as Error).message)).not.toContain(vapid.privateKey);
    }
    expect(() => createWebPushSender({ vapid: { ...vapid, subject: 'ops@example.com' } })).toThrow(
      ConfigError,
    );
  });

  test('VAPID details come from config; none means push is off, half a pair is an error', () => {
    const subject = 'mailto:ops@example.com';
    expect(vapidDetailsFromConfig({ VAPID_SUBJECT: subject })).toBeUndefined();
    expect(
      vapidDetailsFromConfig({
        VAPID_SUBJECT: subject,
        VAPID_PUBLIC_KEY: vapid.publicKey,
        VAPID_PRIVATE_KEY: vapid.privateKey,
      }),
    ).toEqual({ subject, publicKey: vapid.publicKey, privateKey: vapid.privateKey });
    expect(() =>
      vapidDetailsFromConfig({ VAPID_SUBJECT: subject, VAPID_PUBLIC_KEY: vapid.publicKey }),
    ).toThrow(ConfigError);
  });

  test('Retry-After is read as seconds or an HTTP date', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('sendNotification through the real sender, push service and DynamoDB', () => {
  let store: ReturnType<typeof createDynamoPushSubscriptionStore>;

  beforeAll(async () => {
    const table = await freshTable('push');
    store = createDynamoPushSubscriptionStore({ doc: table.doc, tableName: table.tableName });
  });

  async function subscribe(userId: string) {
    const subscription = push.createSubscription({ applicationServerKey: vapid.publicKey });
    await store.put({ subscription, userId, userAgent: `${userId}-device` });
    return subscription;
  }

  async function clear() {
    for (const s of await store.listActive()) await store.delete(s.endpoint);
  }

  const deps = () => ({
    subscriptions: store,
    sender: createWebPushSender({ vapid }),
    log: silent,
    retry: fastRetry,
    countPendingApprovals: async () => 3,
  });

  test('an approval reaches every device decrypted, under 3 KB even with a long preview', async () => {
    await clear();
    const phone = await subscribe('alex');
    const laptop = await subscribe('sam');
    const result = await sendNotification(deps(), {
      kind: 'approval',
      conversationId: 'conv_maria_sink',
      title: 'Approval needed: reply to Maria',
      body: 'Send "A plumber will come tomorrow at 9am"?',
      actionId: 'act_42',
      contact: { name: 'Maria Lopez', phone: '+14155550111' },
      preview: `The kitchen sink is leaking again. ${'Water everywhere, please hurry! 💧 '.repeat(300)}`,
    });
    expect(result).toMatchObject({ subscriptions: 2, delivered: 2, removed: 0, failed: 0 });

    for (const sub of [phone, laptop]) {
      const [got] = push.deliveries(sub.endpoint);
      expect(got, 'each device receives the push').toBeDefined();
      expect(got!.ttl).toBe(3600);
      expect(got!.urgency).toBe('high');
      expect(got!.topic).toBe(conversationTopic('conv_maria_sink'));
      expect(Buffer.byteLength(got!.rawPayload)).toBeLessThan(MAX_PAYLOAD_BYTES);
      const payload = pushNotificationPayload.parse(got!.payload);
      expect(payload).toMatchObject({
        kind: 'approval',
        conversationId: 'conv_maria_sink',
        actionId: 'act_42',
        url: '/chat?id=conv_maria_sink',
        requireInteraction: true,
        pendingApprovals: 3,
      });
      expect(payload.body).toContain('Maria Lopez');
      expect(payload.body).toContain('The kitchen sink is leaking again.');
    }
  });

  test('an alert: normal urgency, shorter TTL, auto-dismiss', async () => {
    await clear();
    const phone = await subscribe('jo');
    await sendNotification(deps(), {
      kind: 'alert',
      conversationId: 'conv_flood',
      title: 'Urgent: flooding at 48 Elm Ave',
      body: 'The on-call person was paged.',
      contact: { name: 'David Kim' },
    });
    const [got] = push.deliveries(phone.endpoint);
    expect(got!.urgency).toBe('normal');
    expect(got!.ttl).toBeLessThan(3600);
    expect((got!.payload as { requireInteraction: boolean }).requireInteraction).toBe(false);
  });

  test('404 and 410 answers remove those subscriptions from DynamoDB', async () => {
    await clear();
    const revoked = await subscribe('alex');
    const unknown = await subscribe('sam');
    const healthy = await subscribe('jo');
    push.expire(revoked.endpoint);
    push.failWith(unknown.endpoint, 404);

    const result = await sendNotification(deps(), {
      kind: 'alert',
      conversationId: 'c1',
      title: 'New text',
      body: 'hello',
    });
    expect(result).toMatchObject({ subscriptions: 3, delivered: 1, removed: 2, failed: 0 });
    expect((await store.listActive()).map((s) => s.endpoint)).toEqual([healthy.endpoint]);
    expect(push.attempts(revoked.endpoint).map((a) => a.status)).toEqual([410]);
  });

  test('429 then 503 are retried, then the push is delivered', async () => {
    await clear();
    const phone = await subscribe('alex');
    push.failWith(phone.endpoint, 429, { times: 1, retryAfterSeconds: 0 });
    push.failWith(phone.endpoint, 503, { times: 1 });

    const result = await sendNotification(deps(), {
      kind: 'approval',
      conversationId: 'c2',
      title: 'Approval needed',
      body: 'Send it?',
    });
    expect(result).toMatchObject({ delivered: 1, failed: 0, retries: 2 });
    expect(push.attempts(phone.endpoint).map((a) => a.status)).toEqual([429, 503, 201]);
    expect(push.deliveries(phone.endpoint)).toHaveLength(1);
    expect(await store.listActive()).toHaveLength(1);
  });

  test('a push service that stays at 503 is given up on after the bounded retries; the device is kept', async () => {
    await clear();
    const phone = await subscribe('alex');
    push.failWith(phone.endpoint, 503);
    const result = await sendNotification(deps(), {
      kind: 'alert',
      conversationId: 'c3',
      title: 'New text',
      body: 'hi',
    });
    expect(result).toMatchObject({ delivered: 0, failed: 1, removed: 0 });
    expect(push.attempts(phone.endpoint)).toHaveLength(fastRetry.retries + 1);
    expect(await store.listActive()).toHaveLength(1);
  });
});

import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/openphone-webhook';
import { buildMessageReceived, signDelivery } from '../../scripts/simulate-sms';
import { eventEnvelope } from '../../shared/src/contracts/events';
import {
  apiGatewayEvent,
  type InboundBackends,
  parseResult,
  startInboundBackends,
  TEST_WEBHOOK_SECRET,
} from './fixtures';

/**
 * The real webhook function (functions/openphone-webhook.ts) invoked with API Gateway v2 events, against
 * DynamoDB Local (idempotency claims) and fauxqs (the events queue): what each kind of delivery is answered,
 * and what reaches the queue.
 */
let be: InboundBackends;
beforeAll(async () => {
  be = await startInboundBackends();
});
afterAll(async () => {
  await be?.stop();
});

const FROM = '+14155550111';
const TO = '+14155550100';
const KEY = Buffer.from(TEST_WEBHOOK_SECRET.replace(/^whsec_/, ''), 'base64');

/** An independent signer for the vectors that the code's own signer cannot produce (wrong units, tampering). */
const hmac64 = (signed: string) => createHmac('sha256', KEY).update(signed, 'utf8').digest('base64');

const invoke = async (body: string, headers: Record<string, string>, isBase64Encoded = false) =>
  parseResult(await handler(apiGatewayEvent({ body, headers, isBase64Encoded })));

const delivery = (scheme: 'legacy' | 'standard', text = 'The heater in unit 2 makes a banging noise') =>
  buildMessageReceived({ from: FROM, to: TO, text, scheme });

const enqueuedIds = async () =>
  (await be.drain()).map((b) => {
    const parsed = eventEnvelope.parse(JSON.parse(b));
    return parsed.id;
  });

describe('POST /webhooks/openphone through the real handler', () => {
  it('valid deliveries in both schemes → 202, one sms.received each, shaped for the worker', async () => {
    const results = [];
    for (const scheme of ['standard', 'legacy'] as const) {
      const d = delivery(scheme);
      const res = await invoke(
        d.rawBody,
        signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme }),
      );
      expect(res.status, scheme).toBe(202);
      expect(res.body).toMatchObject({ status: 'enqueued', eventId: `sms_${d.eventId}`, urgent: false });
      results.push(res.body.eventId);
    }
    const bodies = await be.drain();
    expect(bodies).toHaveLength(2);
    const events = bodies.map((b) => eventEnvelope.parse(JSON.parse(b)));
    expect(events.map((e) => e.id).sort()).toEqual([...results].sort());
    for (const e of events) {
      expect(e).toMatchObject({ type: 'sms.received', key: `sms:${FROM}` });
      if (e.type !== 'sms.received') throw new Error('unreachable');
      expect(e.payload).toMatchObject({
        from: FROM,
        to: TO,
        text: 'The heater in unit 2 makes a banging noise',
      });
    }
  });

  it('a body API Gateway passed base64-encoded is verified over its decoded bytes → 202', async () => {
    const d = delivery('standard', 'Gracias — el calefactor ya funciona ✓');
    const headers = signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'standard' });
    const res = await invoke(Buffer.from(d.rawBody, 'utf8').toString('base64'), headers, true);
    expect(res.status).toBe(202);
    expect(await enqueuedIds()).toEqual([`sms_${d.eventId}`]);
  });

  it('an urgent text is flagged urgent on the queued event', async () => {
    const d = delivery('legacy', 'There is smoke coming out of the outlet in the kitchen');
    const res = await invoke(
      d.rawBody,
      signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'legacy' }),
    );
    expect(res).toMatchObject({ status: 202, body: { urgent: true } });
    const [body] = await be.drain();
    expect(JSON.parse(body ?? '{}').payload.urgent).toBe(true);
  });

  const now = () => Date.now();
  const nowS = () => Math.floor(Date.now() / 1000);
  type Vector = {
    name: string;
    make: () => { body: string; headers: Record<string, string> };
    reason: RegExp;
  };
  const rejected: Vector[] = [
    {
      name: 'standard: body changed after signing',
      make: () => {
        const d = delivery('standard');
        const headers = signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'standard' });
        return { body: d.rawBody.replace('banging', 'BANGING'), headers };
      },
      reason: /bad_signature/,
    },
    {
      name: 'legacy: body changed after signing',
      make: () => {
        const d = delivery('legacy');
        const headers = signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'legacy' });
        return { body: `${d.rawBody} `, headers };
      },
      reason: /bad_signature/,
    },
    {
      name: 'standard: signed with another key',
      make: () => {
        const d = delivery('standard');
        const other = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
        return {
          body: d.rawBody,
          headers: signDelivery({ rawBody: d.rawBody, secret: other, scheme: 'standard' }),
        };
      },
      reason: /bad_signature/,
    },
    {
      name: 'standard: webhook-id swapped after signing (the id is signed too)',
      make: () => {
        const d = delivery('standard');
        const headers = signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'standard' });
        return { body: d.rawBody, headers: { ...headers, 'webhook-id': 'msg_someone_else' } };
      },
      reason: /bad_signature/,
    },
    {
      name: 'standard: stale (6 minutes old)',
      make: () => {
        const d = delivery('standard');
        const ts = nowS() - 360;
        return {
          body: d.rawBody,
          headers: {
            'webhook-id': 'msg_stale',
            'webhook-timestamp': String(ts),
            'webhook-signature': `v1,${hmac64(`msg_stale.${ts}.${d.rawBody}`)}`,
          },
        };
      },
      reason: /timestamp_out_of_range/,
    },
    {
      name: 'legacy: stale (6 minutes old)',
      make: () => {
        const d = delivery('legacy');
        const ts = now() - 360_000;
        return {
          body: d.rawBody,
          headers: { 'openphone-signature': `hmac;1;${ts};${hmac64(`${ts}.${d.rawBody}`)}` },
        };
      },
      reason: /timestamp_out_of_range/,
    },
    {
      name: 'legacy: from the future (6 minutes ahead)',
      make: () => {
        const d = delivery('legacy');
        const ts = now() + 360_000;
        return {
          body: d.rawBody,
          headers: { 'openphone-signature': `hmac;1;${ts};${hmac64(`${ts}.${d.rawBody}`)}` },
        };
      },
      reason: /timestamp_out_of_range/,
    },
    {
      name: 'legacy: timestamp in seconds (correctly signed, wrong unit)',
      make: () => {
        const d = delivery('legacy');
        const ts = nowS();
        return {
          body: d.rawBody,
          headers: { 'openphone-signature': `hmac;1;${ts};${hmac64(`${ts}.${d.rawBody}`)}` },
        };
      },
      reason: /timestamp_unit_mismatch/,
    },
    {
      name: 'standard: timestamp in milliseconds (correctly signed, wrong unit)',
      make: () => {
        const d = delivery('standard');
        const ts = now();
        return {
          body: d.rawBody,
          headers: {
            'webhook-id': 'msg_ms',
            'webhook-timestamp': String(ts),
            'webhook-signature': `v1,${hmac64(`msg_ms.${ts}.${d.rawBody}`)}`,
          },
        };
      },
      reason: /timestamp_unit_mismatch/,
    },
    {
      name: 'no signature headers at all',
      make: () => ({ body: delivery('standard').rawBody, headers: {} }),
      reason: /missing_headers/,
    },
  ];

  it.each(rejected)('$name → 401 with the reason, nothing enqueued', async (v) => {
    const { body, headers } = v.make();
    const res = await invoke(body, headers);
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'unauthorized' } });
    expect(String((res.body.error as { message: string }).message)).toMatch(v.reason);
    expect(await be.drain()).toEqual([]);
  });

  it('a replayed standard delivery (same webhook-id, fresh signature) → 200 duplicate, no second event', async () => {
    const d = delivery('standard');
    const webhookId = 'msg_replayed_0001';
    const first = await invoke(
      d.rawBody,
      signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'standard', webhookId }),
    );
    expect(first.status).toBe(202);
    const again = await invoke(
      d.rawBody,
      signDelivery({
        rawBody: d.rawBody,
        secret: TEST_WEBHOOK_SECRET,
        scheme: 'standard',
        webhookId,
        timestampMs: Date.now() + 1500,
      }),
    );
    expect(again).toEqual({
      status: 200,
      body: { status: 'duplicate', reason: 'delivery already received' },
    });
    expect(await enqueuedIds()).toEqual([`sms_${d.eventId}`]);
  });

  it('a replayed legacy delivery (same event id) → 200 duplicate, no second event', async () => {
    const d = delivery('legacy');
    const sign = (timestampMs: number) =>
      signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'legacy', timestampMs });
    expect((await invoke(d.rawBody, sign(Date.now()))).status).toBe(202);
    const replays = await Promise.all([1, 2, 3].map((i) => invoke(d.rawBody, sign(Date.now() + i))));
    expect(replays.map((r) => [r.status, r.body.status])).toEqual([
      [200, 'duplicate'],
      [200, 'duplicate'],
      [200, 'duplicate'],
    ]);
    expect(await enqueuedIds()).toEqual([`sms_${d.eventId}`]);
  });

  it('concurrent copies of one delivery race for the claim: exactly one is enqueued', async () => {
    const d = delivery('standard');
    const webhookId = 'msg_race_0001';
    const copies = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        invoke(
          d.rawBody,
          signDelivery({
            rawBody: d.rawBody,
            secret: TEST_WEBHOOK_SECRET,
            scheme: 'standard',
            webhookId,
            timestampMs: Date.now() + i,
          }),
        ),
      ),
    );
    expect(copies.filter((c) => c.status === 202)).toHaveLength(1);
    // The others either found it done (200 duplicate) or still being enqueued (409: Quo retries any non-2xx,
    // and the retry finds it done). None is a second enqueue, none a 5xx.
    const others = copies.filter((c) => c.status !== 202);
    expect(others).toHaveLength(11);
    for (const c of others) {
      if (c.status === 200) expect(c.body.status).toBe('duplicate');
      else
        expect([c.status, (c.body as { error?: { code?: string } }).error?.code]).toEqual([
          409,
          'delivery_in_progress',
        ]);
    }
    expect(await enqueuedIds()).toEqual([`sms_${d.eventId}`]);
  });

  it.each(['👍', '❤️', 'Liked “Your plumber comes at 3”', 'Reacted 😂 to “no rush”'])(
    'reaction %j → 200 ignored, nothing enqueued (the ledger line is tested in openphone-webhook-events)',
    async (text) => {
      const d = delivery('standard', text);
      const res = await invoke(
        d.rawBody,
        signDelivery({ rawBody: d.rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'standard' }),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'ignored', reason: expect.stringMatching(/reaction/) });
      expect(await be.drain()).toEqual([]);
    },
  );

  it.each([
    ['truncated JSON', '{"id":"EV1","type":"message.received","data":{"object":{', /not valid JSON/],
    ['not JSON at all', 'from=%2B14155550111&text=hi', /not valid JSON/],
    ['an empty body', '', /not valid JSON/],
    ['a JSON array', '[]', /Invalid OpenPhone webhook: \(root\)/],
    ['an envelope without type', '{"id":"EV1","createdAt":"2026-01-01T00:00:00Z"}', /type/],
    [
      'message.received without a sender',
      JSON.stringify({
        id: 'EV2',
        type: 'message.received',
        createdAt: '2026-01-01T00:00:00Z',
        data: { object: { id: 'AC1', to: [TO], direction: 'incoming', text: 'hi', createdAt: 'x' } },
      }),
      /data\.object\.from/,
    ],
    [
      'message.received with an unknown direction',
      JSON.stringify({
        id: 'EV3',
        type: 'message.received',
        createdAt: '2026-01-01T00:00:00Z',
        data: {
          object: { id: 'AC1', from: FROM, to: TO, direction: 'sideways', text: 'hi', createdAt: 'x' },
        },
      }),
      /data\.object\.direction/,
    ],
  ])('correctly signed but %s → 400 with the reason, nothing enqueued', async (_name, rawBody, reason) => {
    const res = await invoke(
      rawBody,
      signDelivery({ rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'standard' }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'validation_failed' } });
    expect(String((res.body.error as { message: string }).message)).toMatch(reason);
    expect(await be.drain()).toEqual([]);
  });
});

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { handler } from '../../functions/alarm-push';
import { type PushService, startPushService } from '../../scripts/emulators/push-service';
import { vapidEnvLines } from '../../scripts/vapid-keys';
import { createDynamoPushSubscriptionStore } from '../../shared/src/adapters/dynamo/push-subscription-store';
import { resetComposition } from '../../shared/src/composition/core';
import { pushNotificationPayload } from '../../shared/src/contracts/push';
import { conversationTopic } from '../../shared/src/use-cases/send-notification';
import { subscribePush } from '../../shared/src/use-cases/subscribe-push';
import { freshTable } from '../helpers';

/**
 * Alarm → SNS → functions/alarm-push.ts → the admins' devices, locally: the real handler is invoked with the
 * event SNS gives a Lambda subscriber (AWS's own fixture, test/contracts/vendor/aws/), the subscriptions live
 * in DynamoDB Local, and the local push service checks VAPID and decrypts what a browser would read.
 */
const FIXTURE = JSON.parse(
  readFileSync(
    join(
      import.meta.dirname,
      '..',
      'contracts',
      'vendor',
      'aws',
      'cloudwatch-alarm-sns-payload-single-metric.json',
    ),
    'utf8',
  ),
) as { Records: Array<{ Sns: { Message: string; MessageId: string } }> };

/** The vendor's event with our alarm's message in it (what CloudWatch would publish for one of ours). */
function snsEvent(message: Record<string, unknown> | string) {
  const event = structuredClone(FIXTURE);
  const record = event.Records[0];
  if (!record) throw new Error('fixture has no record');
  const base = JSON.parse(record.Sns.Message) as Record<string, unknown>;
  record.Sns.Message = typeof message === 'string' ? message : JSON.stringify({ ...base, ...message });
  return event;
}

const DLQ = {
  AlarmName: 'Switchboard-dev-DlqNotEmpty',
  AlarmDescription: 'An event could not be processed and was dead-lettered (npm run ops -- dlq:list)',
  NewStateReason:
    'Threshold Crossed: 1 datapoint [1.0 (24/11/26 05:40:00)] was greater than the threshold (0.0).',
};

let push: PushService;
let table: Awaited<ReturnType<typeof freshTable>>;
let store: ReturnType<typeof createDynamoPushSubscriptionStore>;

beforeAll(async () => {
  push = await startPushService({ log: () => {} });
  table = await freshTable('alarm-push');
  const { publicKey, privateKey } = vapidEnvLines('mailto:ops@oakproperties.example');
  Object.assign(process.env, {
    STAGE: 'test',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    EVENTS_QUEUE_URL: 'http://127.0.0.1:1/queue/unused',
    VAPID_PUBLIC_KEY: publicKey,
    VAPID_PRIVATE_KEY: privateKey,
    VAPID_SUBJECT: 'mailto:ops@oakproperties.example',
    LOG_LEVEL: 'ERROR',
  });
  resetComposition();
  store = createDynamoPushSubscriptionStore({ doc: table.doc, tableName: table.tableName });
});

afterAll(async () => {
  await push?.stop();
  table?.raw.destroy();
  resetComposition();
});

beforeEach(() => push.reset());

/** A device subscribed through the same use case the API route calls. */
async function device(userId: string, admin: boolean) {
  const subscription = push.createSubscription({ applicationServerKey: process.env.VAPID_PUBLIC_KEY });
  await subscribePush({ subscriptions: store }, { userId, subscription, userAgent: 'test', admin });
  return subscription;
}

describe('an alarm reaches the admins’ devices, and only theirs', () => {
  test('AWS’s own SNS fixture, verbatim: the admin reads “Alarm: EXAMPLE”, urgent, kept on screen', async () => {
    const alex = await device('user_alex', true);
    const sam = await device('user_sam', false);
    const out = await handler(FIXTURE);
    expect(out.refused).toBe(0);
    expect(out.results[0]).toMatchObject({ alarm: 'EXAMPLE', state: 'ALARM', delivered: 1 });
    const [got] = push.deliveries(alex.endpoint);
    const payload = pushNotificationPayload.parse(got?.payload);
    expect(payload).toMatchObject({
      kind: 'alert',
      title: 'Alarm: EXAMPLE',
      url: '/admin',
      requireInteraction: true,
      tag: conversationTopic('alarm:EXAMPLE'),
    });
    expect(payload.body).toContain('Threshold Crossed');
    expect(got).toMatchObject({ urgency: 'high', ttl: 6 * 3600, topic: conversationTopic('alarm:EXAMPLE') });
    expect(push.deliveries(sam.endpoint)).toEqual([]);
    await store.delete(alex.endpoint);
    await store.delete(sam.endpoint);
  });

  test('our DLQ alarm fires, then clears: “resolved” replaces it under the same topic', async () => {
    const alex = await device('user_alex', true);
    await handler(snsEvent({ ...DLQ, NewStateValue: 'ALARM', OldStateValue: 'OK' }));
    await handler(snsEvent({ ...DLQ, NewStateValue: 'OK', OldStateValue: 'ALARM' }));
    const [fired, cleared] = push.deliveries(alex.endpoint);
    expect(fired?.payload).toMatchObject({
      title: 'Alarm: Switchboard-dev-DlqNotEmpty',
      body: expect.stringContaining('npm run ops -- dlq:list'),
    });
    expect(cleared?.payload).toMatchObject({
      title: 'Resolved: Switchboard-dev-DlqNotEmpty',
      requireInteraction: false,
    });
    expect(cleared).toMatchObject({ urgency: 'normal', topic: fired?.topic });
    await store.delete(alex.endpoint);
  });

  test('a device the push service says is gone (410) is removed; the other admin still gets it', async () => {
    const alex = await device('user_alex', true);
    const jo = await device('user_jo', true);
    push.expire(jo.endpoint);
    const out = await handler(snsEvent({ ...DLQ, NewStateValue: 'ALARM' }));
    expect(out.results[0]).toMatchObject({ subscriptions: 2, delivered: 1, removed: 1, failed: 0 });
    expect((await store.listActive()).map((s) => s.userId)).toEqual(['user_alex']);
    await store.delete(alex.endpoint);
  });

  test('INSUFFICIENT_DATA is not pushed; no admin device → nothing sent, nothing thrown', async () => {
    const alex = await device('user_alex', true);
    const out = await handler(snsEvent({ ...DLQ, NewStateValue: 'INSUFFICIENT_DATA' }));
    expect(out.results[0]).toMatchObject({ state: 'INSUFFICIENT_DATA', subscriptions: 0, delivered: 0 });
    await store.delete(alex.endpoint);
    const none = await handler(snsEvent({ ...DLQ, NewStateValue: 'ALARM' }));
    expect(none.results[0]).toMatchObject({ subscriptions: 0, delivered: 0 });
    expect(push.attempts()).toEqual([]);
  });

  test('what is not an alarm notification is refused without a throw (SNS would only redeliver it)', async () => {
    const alex = await device('user_alex', true);
    expect(await handler(snsEvent('not json'))).toEqual({ results: [], refused: 1 });
    expect(await handler(snsEvent({ NewStateValue: 'ON_FIRE' }))).toEqual({ results: [], refused: 1 });
    expect(await handler({ Records: [] })).toEqual({ results: [], refused: 1 });
    expect(push.attempts()).toEqual([]);
    await store.delete(alex.endpoint);
  });
});

import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, expect, test, vi } from 'vitest';
import { buildMessageReceived, signDelivery } from '../../scripts/simulate-sms';
import { dynamoEventLedger } from '../../shared/src/adapters/dynamo/event-ledger';
import { dynamoIdempotencyStore } from '../../shared/src/adapters/dynamo/idempotency-store';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import type { EventQueue } from '../../shared/src/ports/event-queue';
import { type ReceiveSmsDeps, receiveSmsWebhook } from '../../shared/src/use-cases/receive-sms-webhook';
import { freshTable } from '../helpers';
import { TEST_WEBHOOK_SECRET } from './fixtures';

/**
 * The webhook's claim is Powertools Idempotency on DynamoDB Local (the single table: static pk, expiresAt):
 * a failed enqueue releases it, and a claim whose invocation died (timed out after claiming) expires with the
 * remaining time that invocation had, so Quo's retry is delivered instead of answered "duplicate" for 7 days.
 * The queue is an in-memory EventQueue (our own port) so a send can fail or hang on cue.
 */
let table: Awaited<ReturnType<typeof freshTable>>;
beforeAll(async () => {
  table = await freshTable('idem');
});
afterAll(() => table?.raw.destroy());
afterEach(() => {
  vi.useRealTimers();
});

type SendMode = 'ok' | 'fail' | 'hang';
function queue() {
  const sent: EventEnvelope[] = [];
  let mode: SendMode = 'ok';
  const q: EventQueue & { sent: EventEnvelope[]; mode(m: SendMode): void } = {
    sent,
    mode: (m) => {
      mode = m;
    },
    async send(event) {
      if (mode === 'fail') throw new Error('SQS unavailable');
      if (mode === 'hang') return new Promise<void>(() => {});
      sent.push(event);
    },
  } as EventQueue & { sent: EventEnvelope[]; mode(m: SendMode): void };
  return q;
}

function depsWith(q: EventQueue): ReceiveSmsDeps {
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  return {
    secret: TEST_WEBHOOK_SECRET,
    urgentKeywords: [],
    idempotency: dynamoIdempotencyStore({ raw: table.raw, tableName: table.tableName }),
    queue: q,
    ledger: dynamoEventLedger({ doc: table.doc, tableName: table.tableName }),
    log: silent as unknown as ReceiveSmsDeps['log'],
    clock: () => new Date(),
  };
}

const text = (body: string) =>
  buildMessageReceived({ from: '+14155550111', to: '+14155550100', text: body, scheme: 'standard' });
const signed = (rawBody: string, webhookId: string) => ({
  rawBody,
  headers: signDelivery({ rawBody, secret: TEST_WEBHOOK_SECRET, scheme: 'standard', webhookId }),
});

test('the claim is released when the enqueue fails: 503, and the retried delivery is enqueued', async () => {
  const q = queue();
  const d = text('Is the plumber still coming today?');
  q.mode('fail');
  await expect(receiveSmsWebhook(depsWith(q), signed(d.rawBody, 'msg_fail_0001'))).rejects.toMatchObject({
    code: 'enqueue_failed',
    status: 503,
  });
  q.mode('ok');
  const retry = await receiveSmsWebhook(depsWith(q), signed(d.rawBody, 'msg_fail_0001'));
  expect(retry).toMatchObject({ status: 'enqueued', eventId: `sms_${d.eventId}` });
  expect(q.sent.map((e) => e.id)).toEqual([`sms_${d.eventId}`]);
  // And the one after that is a duplicate.
  const again = await receiveSmsWebhook(depsWith(q), signed(d.rawBody, 'msg_fail_0001'));
  expect(again).toEqual({ status: 'duplicate', reason: 'delivery already received' });
});

test('the webhook times out after claiming; once that invocation could no longer run, the retry is delivered', async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-23T15:00:00Z'));
  const d = text('The heater stopped again, can someone come?');
  // The first invocation claims, then hangs in the enqueue until the runtime kills it: never settles here.
  // Its queue is its own: it may reach the send only after the retries below (a loaded machine), and must
  // still hang then.
  const hung = queue();
  hung.mode('hang');
  void receiveSmsWebhook(depsWith(hung), {
    ...signed(d.rawBody, 'msg_timeout_0001'),
    remainingMs: () => 10_000,
  });
  const inProgress = await until(async () => {
    const res = await table.doc.send(
      new QueryCommand({
        TableName: table.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': 'IDEMP' },
      }),
    );
    return res.Items?.find((i) => i.status === 'INPROGRESS');
  });
  expect(inProgress.inProgressExpiresAt).toBe(Date.parse('2026-11-23T15:00:10Z'));
  expect(inProgress.expiresAt).toBe(Date.parse('2026-11-30T15:00:00Z') / 1000);

  // Quo retries while that invocation could still be running: not run twice, and not acknowledged either —
  // a 409 keeps Quo retrying (any non-2xx is retried), where a 200 "duplicate" would have lost this text.
  const q = queue();
  vi.setSystemTime(new Date('2026-11-23T15:00:05Z'));
  await expect(receiveSmsWebhook(depsWith(q), signed(d.rawBody, 'msg_timeout_0001'))).rejects.toMatchObject({
    status: 409,
    code: 'delivery_in_progress',
  });
  expect(q.sent).toEqual([]);

  // After its remaining time has passed, the claim is abandoned and the retry is delivered.
  vi.setSystemTime(new Date('2026-11-23T15:00:11Z'));
  const retry = await receiveSmsWebhook(depsWith(q), signed(d.rawBody, 'msg_timeout_0001'));
  expect(retry).toMatchObject({ status: 'enqueued', eventId: `sms_${d.eventId}` });
  expect(q.sent.map((e) => e.id)).toEqual([`sms_${d.eventId}`]);
  const done = await table.doc.send(
    new GetCommand({ TableName: table.tableName, Key: { pk: 'IDEMP', sk: inProgress.sk } }),
  );
  expect(done.Item?.status).toBe('COMPLETED');
});

async function until<T>(fn: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error('never became true');
}

import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { makeSqsClient } from '../shared/src/adapters/sqs-event-queue';
import { getCore } from '../shared/src/composition/core';
import type { EventEnvelope } from '../shared/src/contracts/events';
import { newId } from '../shared/src/ids';

let stack: LocalStack;

beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false });
}, 90_000);
afterAll(async () => {
  await stack?.stop();
});

async function until<T>(fn: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
}

test('health answers through the gateway as an API Gateway v2 event', async () => {
  const res = await fetch(`${stack.url}/health`);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ ok: true });
});

test('an unknown API route is a JSON 404', async () => {
  const res = await fetch(`${stack.url}/api/does-not-exist`);
  expect(res.status).toBe(404);
  expect((await res.json()).error.code).toBe('not_found');
});

test('an enqueued event is consumed by the worker and recorded in DynamoDB', async () => {
  const core = await getCore('test-smoke');
  const event: EventEnvelope = {
    id: newId('ev_'),
    type: 'system.ping',
    correlationId: newId('corr_'),
    key: 'system:ping',
    occurredAt: new Date().toISOString(),
    payload: { note: 'smoke' },
  };
  await core.queue.send(event);
  const entry = await until(async () => {
    const e = await core.ledger.get(event.id);
    return e?.status === 'processed' ? e : undefined;
  });
  expect(entry.reason).toBe('pong: smoke');
});

test('a malformed queue message is dead-lettered with its reason, not retried forever', async () => {
  const sqs = makeSqsClient({ region: 'us-east-1', endpoint: stack.env.SQS_ENDPOINT });
  await sqs.send(
    new SendMessageCommand({ QueueUrl: stack.env.EVENTS_QUEUE_URL, MessageBody: '{"type":"nope"}' }),
  );
  const dead = await until(async () => {
    const r = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: stack.env.DLQ_URL,
        MessageAttributeNames: ['All'],
        WaitTimeSeconds: 1,
      }),
    );
    return r.Messages?.[0];
  });
  expect(dead.Body).toBe('{"type":"nope"}');
  expect(dead.MessageAttributes?.reason?.StringValue).toMatch(/invalid envelope/);
  sqs.destroy();
});

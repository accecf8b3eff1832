import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { getCore } from '../../shared/src/composition/core';
import type { PendingAction } from '../../shared/src/contracts/conversations';

/**
 * Nothing stays stuck (SPEC §6.8), through the public interfaces: a signed webhook makes a card, a person
 * approves it over the API, every send fails at the provider; on the queue's last receive the worker records
 * the dead letter, the card and run end FAILED with the reason, and a person's Retry makes a new card that
 * is approved afresh and sent once.
 */
let stack: LocalStack;
let token = '';
beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    schedulerTickMs: 0,
    maxReceiveCount: 3,
    visibilityTimeoutSeconds: 1,
    env: { COOLDOWN_SECONDS: '1' },
  });
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  token = ((await session.json()) as { token: string }).token;
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 45_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('timed out');
}

const api = (path: string, body: unknown = {}) =>
  fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });

test('an approval whose execution keeps failing ends FAILED with the reason; Retry makes a new card, approved afresh, sent once', async () => {
  const op = stack.emulators!.openphone;
  const phone = '+14155550112';
  await op.fireIncomingMessage({
    from: phone,
    text: 'Can you confirm my lease renewal?',
    scheme: 'standard',
  });
  const core = await getCore('test-dead-letter');
  const card = await until(async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${phone}`);
    return conv && (await core.actions.listByConversation(conv.id)).find((a) => a.status === 'PENDING');
  });

  op.state.failNext('/v1/messages', 500, { method: 'POST', times: 100 });
  const approved = await api(`/api/conversations/${card.conversationId}/actions/${card.id}/approve`);
  // Under heavy load this once answered 409 ("already decided"): the body says which state the card was in.
  expect(approved.status, await approved.clone().text()).toBe(200);

  const failed = await until(async () => {
    const a = await core.actions.get(card.conversationId, card.id);
    return a?.status === 'FAILED' ? a : undefined;
  });
  expect(failed.error).toMatch(/gave up after 3 attempts/);
  expect(failed.error).toMatch(/may or may not have gone out/);
  const run = await until(async () => {
    const r = await core.runs.get(card.conversationId, card.runId);
    return r?.status === 'failed' ? r : undefined;
  });
  expect(run.outcome).toMatch(/^FAILED: gave up after 3 attempts/);
  const day = new Date().toISOString().slice(0, 10);
  // The approval (or, when the worker is slow, a redelivered copy of the text that drove the same run) was
  // recorded dead-lettered by its last receive.
  const keys = [`conv:${card.conversationId}`, `sms:${phone}`];
  const ledger = (await core.ledger.listDay(day)).filter(
    (e) => e.status === 'dead_lettered' && keys.includes(e.key) && /gave up after 3 attempts/.test(e.reason),
  );
  expect(ledger.length).toBeGreaterThanOrEqual(1);
  const messages = await core.conversations.listMessages(card.conversationId);
  expect(messages.some((m) => m.role === 'assistant' && /press Retry/.test(m.text))).toBe(true);
  expect((await core.conversations.get(card.conversationId))?.pendingCount).toBe(0);
  // The event went on to the DLQ (SQS's redrive), where operators can replay it; nothing consumed it.
  const sqs = makeSqsClient({ region: 'us-east-1', endpoint: stack.env.SQS_ENDPOINT });
  await until(async () => {
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: stack.env.DLQ_URL,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    );
    return Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0) >= 1;
  });
  sqs.destroy();
  expect(op.state.sent.filter((m) => m.to.includes(phone))).toHaveLength(0);

  // The card shows the reason; a person retries: a new card, its own id, PENDING, not executed by itself.
  op.state.clearScripted();
  const res = await api(`/api/conversations/${card.conversationId}/actions/${card.id}/retry`);
  expect(res.status).toBe(201);
  const retry = ((await res.json()) as { action: PendingAction }).action;
  expect(retry).toMatchObject({ status: 'PENDING', retryOf: card.id, tool: card.tool, args: card.args });
  expect(retry.id).not.toBe(card.id);
  expect(retry.runId).not.toBe(card.runId);
  const again = (
    (await (await api(`/api/conversations/${card.conversationId}/actions/${card.id}/retry`)).json()) as {
      action: PendingAction;
    }
  ).action;
  expect(again.id).toBe(retry.id);
  expect((await core.actions.get(card.conversationId, card.id))?.retriedAs).toBe(retry.id);
  await new Promise((r) => setTimeout(r, 1000));
  expect(op.state.sent.filter((m) => m.to.includes(phone))).toHaveLength(0);

  expect((await api(`/api/conversations/${card.conversationId}/actions/${retry.id}/approve`)).status).toBe(
    200,
  );
  await until(async () => (await core.actions.get(card.conversationId, retry.id))?.status === 'EXECUTED');
  await new Promise((r) => setTimeout(r, 1500));
  expect(op.state.sent.filter((m) => m.to.includes(phone))).toHaveLength(1);
  expect((await core.runs.get(card.conversationId, retry.runId))?.status).toBe('completed');

  // Only a FAILED card can be retried.
  expect((await api(`/api/conversations/${card.conversationId}/actions/${retry.id}/retry`)).status).toBe(409);
}, 120_000);

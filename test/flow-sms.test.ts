import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';
import type { PendingAction } from '../shared/src/contracts/conversations';
import { decideApproval } from '../shared/src/use-cases/decide-approval';

/**
 * The product's core path end to end on the local stack, with every real part: a signed OpenPhone
 * webhook → gateway → webhook function → SQS → worker → rules-mode triage → pending action → a person's
 * decision → the worker executes exactly once through the OpenPhone emulator's API.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false, env: { COOLDOWN_SECONDS: '2' } });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

async function until<T>(fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error('timed out');
}

async function pendingFor(phone: string): Promise<PendingAction> {
  const core = await getCore('test-flow');
  return until(async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${phone}`);
    if (!conv) return undefined;
    const actions = await core.actions.listByConversation(conv.id);
    return actions.find((a) => a.status === 'PENDING');
  });
}

const decide = async (
  a: PendingAction,
  decision: 'approve' | 'deny',
  extra: { editedArgs?: Record<string, unknown>; reason?: string } = {},
) => {
  const core = await getCore('test-flow');
  return decideApproval(
    { ...core, validateArgs: (_t, args) => ({ ok: true, args: args as Record<string, unknown> }) },
    {
      conversationId: a.conversationId,
      actionId: a.id,
      decision,
      user: { id: 'u_sam', email: 'sam@oakproperties.example' },
      ...extra,
    },
  );
};

test('an inbound text becomes a drafted reply awaiting approval; approving sends it exactly once', async () => {
  const op = stack.emulators!.openphone;
  await op.fireIncomingMessage({
    from: '+14155550111',
    text: 'Hi, the kitchen sink is leaking slowly',
    scheme: 'standard',
  });
  const action = await pendingFor('+14155550111');
  expect(action.tool).toBe('send_message');
  expect(action.args.to).toBe('+14155550111');
  expect(String(action.args.text)).toMatch(/^Hi Maria/);
  expect(action.review.plan?.score).toBeGreaterThanOrEqual(6);
  // The policy's derivation (or, during quiet hours, the question that blocks it) travels with the card.
  expect((action.policy?.why.length ?? 0) + (action.policy?.missing?.questions.length ?? 0)).toBeGreaterThan(
    0,
  );
  expect(op.state.sent.filter((m) => m.to.includes('+14155550111'))).toHaveLength(0);

  const edited = { ...action.args, text: 'Hi Maria, thanks — a plumber will come by tomorrow morning.' };
  await decide(action, 'approve', { editedArgs: edited });
  const core = await getCore('test-flow');
  const done = await until(async () => {
    const a = await core.actions.get(action.conversationId, action.id);
    return a?.status === 'EXECUTED' ? a : undefined;
  });
  expect(done.edit?.to.text).toBe(edited.text);
  const sent = op.state.sent.filter((m) => m.to.includes('+14155550111'));
  expect(sent.map((m) => m.text)).toEqual([edited.text]);
  expect(sent[0]?.from).toBe('+14155550100');

  // A second decision on the same card is a conflict, and nothing is sent again.
  await expect(decide(action, 'approve')).rejects.toMatchObject({ status: 409 });
  await new Promise((r) => setTimeout(r, 1500));
  expect(op.state.sent.filter((m) => m.to.includes('+14155550111'))).toHaveLength(1);
  const run = await until(async () => {
    const r = await core.runs.get(action.conversationId, action.runId);
    return r?.status === 'completed' ? r : undefined;
  });
  expect(run.outcome).toBe('responded');
}, 60_000);

test('denying a draft tells the agent why and nothing is sent', async () => {
  const op = stack.emulators!.openphone;
  await op.fireIncomingMessage({
    from: '+14155550112',
    text: 'Is the rent due on the 1st or the 5th?',
    scheme: 'legacy',
  });
  const action = await pendingFor('+14155550112');
  await decide(action, 'deny', { reason: 'Sam will call him instead' });
  const core = await getCore('test-flow');
  const messages = await until(async () => {
    const m = await core.conversations.listMessages(action.conversationId);
    return m.some((x) => x.role === 'assistant' && x.text.includes('Sam will call him instead'))
      ? m
      : undefined;
  });
  expect(messages.at(-1)?.text).toMatch(/did not send the acknowledgement/);
  expect(op.state.sent.filter((m) => m.to.includes('+14155550112'))).toHaveLength(0);
}, 60_000);

test('an urgent text pages the on-call person through Twilio without waiting for approval', async () => {
  const op = stack.emulators!.openphone;
  await op.fireIncomingMessage({
    from: '+14155550113',
    text: 'There is water flooding from the ceiling!!',
    scheme: 'standard',
  });
  const tw = stack.emulators!.twilio;
  await until(async () => tw.state.messages.length > 0 && tw.state.calls.length > 0);
  expect(tw.state.messages[0]?.to).toBe('+14155550103');
  expect(tw.state.messages[0]?.body).toMatch(/URGENT/);
  const action = await pendingFor('+14155550113');
  expect(String(action.args.text)).toMatch(/urgent/);
}, 60_000);

import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { expiryTimerName, renotifyTimerName } from '../../shared/src/agent/card-timers';
import { getCore } from '../../shared/src/composition/core';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { decideApproval } from '../../shared/src/use-cases/decide-approval';

/**
 * Cards expire on EventBridge Scheduler timers: a signed webhook → a PENDING card with its timers on the
 * Scheduler emulator; the test moves the emulator's clock instead of waiting 24 hours.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    schedulerTickMs: 0,
    env: { COOLDOWN_SECONDS: '1' },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const HOUR = 3_600_000;

async function until<T>(fn: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error('timed out');
}

async function pendingFor(phone: string): Promise<PendingAction> {
  const core = await getCore('test-timers');
  return until(async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${phone}`);
    if (!conv) return undefined;
    return (await core.actions.listByConversation(conv.id)).find((a) => a.status === 'PENDING');
  });
}

// The Scheduler emulator's clock only moves forward, so the tests run in this order.
let urgentCard: PendingAction | undefined;

test('an urgent card is re-notified after 10 minutes', async () => {
  await stack.emulators!.openphone.fireIncomingMessage({
    from: '+14155550113',
    text: 'Water is flooding the hallway from the ceiling!',
    scheme: 'legacy',
  });
  const card = await pendingFor('+14155550113');
  const core = await getCore('test-timers');
  await until(async () => {
    const n = stack.scheduler.schedules().map((s) => s.name);
    return n.includes(expiryTimerName(card.id)) && n.includes(renotifyTimerName(card.id));
  });
  const push = stack.emulators!.push;
  const device = stack.demoDevice!.endpoint;
  const renotifyPushes = () =>
    push.deliveries(device).filter((d) => JSON.stringify(d.payload).includes('Still waiting (urgent)'));
  expect(await stack.scheduler.advance(9 * 60_000)).toBe(0);
  expect(renotifyPushes()).toHaveLength(0);
  await stack.scheduler.advance(2 * 60_000);
  await until(async () =>
    (await core.audit.list(card.conversationId)).some((e) => e.type === 'action.renotified'),
  );
  await until(async () => renotifyPushes().length === 1);

  // Approved through the API, as the PWA does: the decision deletes the card's remaining schedule (its
  // expiry; the re-notification already fired and deleted itself), so nothing is left to fire for it.
  expect(stack.scheduler.schedules().map((s) => s.name)).toContain(expiryTimerName(card.id));
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  const { token } = (await session.json()) as { token: string };
  const approved = await fetch(
    `${stack.url}/api/conversations/${card.conversationId}/actions/${card.id}/approve`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{}',
    },
  );
  expect(approved.status).toBe(200);
  const left = stack.scheduler.schedules().map((s) => s.name);
  expect(left).not.toContain(expiryTimerName(card.id));
  expect(left).not.toContain(renotifyTimerName(card.id));
  await until(async () => (await core.actions.get(card.conversationId, card.id))?.status === 'EXECUTED');
  urgentCard = card;
}, 90_000);

test('then a card with no decision expires after 24 h: EXPIRED, the run ends, the conversation says so, a late approve is 409', async () => {
  await stack.emulators!.openphone.fireIncomingMessage({
    from: '+14155550111',
    text: 'Could someone look at the dishwasher next week?',
    scheme: 'standard',
  });
  const card = await pendingFor('+14155550111');
  const core = await getCore('test-timers');
  // The timers are set right after the card and its push, in the same durable step.
  const names = await until(async () => {
    const n = stack.scheduler.schedules().map((s) => s.name);
    return n.includes(expiryTimerName(card.id)) ? n : undefined;
  });
  expect(names).not.toContain(renotifyTimerName(card.id));
  const expiry = stack.scheduler.schedules().find((s) => s.name === expiryTimerName(card.id));
  expect(expiry?.expression).toBe(
    `at(${new Date(Date.parse(card.createdAt) + 24 * HOUR).toISOString().slice(0, 19)})`,
  );

  // The emulator's clock is already ahead from the previous test: move it to times relative to the card.
  const advanceTo = (t: number) => stack.scheduler.advance(Math.max(0, t - stack.scheduler.now().getTime()));
  const due = Date.parse(card.createdAt) + 24 * HOUR;
  await advanceTo(due - 2 * 60_000);
  await new Promise((r) => setTimeout(r, 500));
  expect((await core.actions.get(card.conversationId, card.id))?.status).toBe('PENDING');
  await advanceTo(due + 60_000);

  const expired = await until(async () => {
    const a = await core.actions.get(card.conversationId, card.id);
    return a?.status === 'EXPIRED' ? a : undefined;
  });
  expect(expired.error).toMatch(/No decision within 24 h/);
  const run = await until(async () => {
    const r = await core.runs.get(card.conversationId, card.runId);
    return r?.status === 'completed' ? r : undefined;
  });
  expect(run.outcome).toMatch(/^EXPIRED/);
  const messages = await core.conversations.listMessages(card.conversationId);
  expect(messages.some((m) => m.role === 'assistant' && /expired after 24 hours/.test(m.text))).toBe(true);
  expect((await core.conversations.get(card.conversationId))?.pendingCount).toBe(0);
  expect((await core.audit.list(card.conversationId)).some((e) => e.type === 'action.expired')).toBe(true);
  // The schedule deleted itself after firing (ActionAfterCompletion DELETE).
  expect(stack.scheduler.schedules().map((s) => s.name)).not.toContain(expiryTimerName(card.id));

  await expect(
    decideApproval(
      { ...core, validateArgs: (_t, args) => ({ ok: true, args: args as Record<string, unknown> }) },
      {
        conversationId: card.conversationId,
        actionId: card.id,
        decision: 'approve',
        user: { id: 'u_sam', email: 'sam@oakproperties.example' },
      },
    ),
  ).rejects.toMatchObject({ status: 409 });
  expect(stack.emulators!.openphone.state.sent.filter((m) => m.to.includes('+14155550111'))).toHaveLength(0);

  // The urgent card decided in time (previous test) went through the same 24 h: it stays EXECUTED and was
  // re-notified once only.
  const u = urgentCard as PendingAction;
  expect((await core.actions.get(u.conversationId, u.id))?.status).toBe('EXECUTED');
  const renotified = (await core.audit.list(u.conversationId)).filter((e) => e.type === 'action.renotified');
  expect(renotified).toHaveLength(1);
}, 90_000);

test('a draft withdrawn by a newer text, and one replaced by "Redraft…" through the API, leave no timer behind', async () => {
  const phone = '+14155550112';
  const op = stack.emulators!.openphone;
  await op.fireIncomingMessage({ from: phone, text: 'The porch light is out again', scheme: 'standard' });
  const first = await pendingFor(phone);
  await until(async () => stack.scheduler.schedules().some((s) => s.name === expiryTimerName(first.id)));
  await new Promise((r) => setTimeout(r, 1100)); // past the 1 s cooldown: the second text is a run of its own

  // Signed webhook: the same person writes again before anyone decided → the first draft is SUPERSEDED.
  await op.fireIncomingMessage({ from: phone, text: 'Also the doorbell buzzes', scheme: 'standard' });
  const core = await getCore('test-timers');
  await until(async () => (await core.actions.get(first.conversationId, first.id))?.status === 'SUPERSEDED');
  const second = await until(async () =>
    (await core.actions.listByConversation(first.conversationId)).find(
      (a) => a.status === 'PENDING' && a.id !== first.id,
    ),
  );
  const names = () => stack.scheduler.schedules().map((s) => s.name);
  await until(async () => names().includes(expiryTimerName(second.id)));
  expect(names()).not.toContain(expiryTimerName(first.id));

  // "Redraft…" through the API replaces the second card: its schedule goes too.
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  const { token } = (await session.json()) as { token: string };
  const redraft = await fetch(
    `${stack.url}/api/conversations/${second.conversationId}/actions/${second.id}/redraft`,
    {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ instruction: 'shorter' }),
    },
  );
  expect(redraft.status).toBe(200);
  expect(names()).not.toContain(expiryTimerName(second.id));
}, 90_000);

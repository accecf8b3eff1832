import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { getCore } from '../../shared/src/composition/core';
import type { PendingAction } from '../../shared/src/contracts/conversations';

/**
 * Paging cannot be abused from outside (issue 12 item 8), through signed webhooks: urgent texts from
 * rotating numbers page the on-call person only within the team's budget (3 an hour here), an unknown
 * number pages once per window, a page past the budget is not sent and the team is alerted in the app
 * (conversation + push), and a person can still page by retrying the card.
 */
let stack: LocalStack;
let token = '';
beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    schedulerTickMs: 0,
    env: { COOLDOWN_SECONDS: '1', PAGE_BUDGET_PER_HOUR: '3' },
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

const api = (path: string) =>
  fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: '{}',
  });

/** Sends an urgent text and waits until its page card has an outcome (the n-th from that number). */
async function urgentText(from: string, nth = 1): Promise<PendingAction> {
  await stack.emulators!.openphone.fireIncomingMessage({
    from,
    text: `Fire alarm going off and smoke in the stairwell (${from} #${nth})`,
    scheme: 'standard',
  });
  const core = await getCore('test-paging');
  return until(async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${from}`);
    if (!conv) return undefined;
    const pages = (await core.actions.listByConversation(conv.id))
      .filter((a) => a.tool === 'escalate')
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    const page = pages[nth - 1];
    return page && ['EXECUTED', 'FAILED'].includes(page.status) ? page : undefined;
  });
}

test('rotating numbers page only within the budget; past it nothing is paged and the team is alerted', async () => {
  const twilio = stack.emulators!.twilio;
  const pagesSent = () => twilio.state.messages.length;

  const a1 = await urgentText('+14155550981');
  expect(a1.status).toBe('EXECUTED');
  expect(pagesSent()).toBe(1);
  // The same unknown number again (after its cooldown): once per 30 minutes.
  await new Promise((r) => setTimeout(r, 1500));
  const a2 = await urgentText('+14155550981', 2);
  expect(a2.status).toBe('FAILED');
  expect(a2.error).toMatch(/one page per 30 minutes for a number not in the contacts/);

  expect((await urgentText('+14155550982')).status).toBe('EXECUTED');
  expect((await urgentText('+14155550983')).status).toBe('EXECUTED');
  expect(pagesSent()).toBe(3);

  const blocked = [await urgentText('+14155550984'), await urgentText('+14155550985')];
  for (const b of blocked) {
    expect(b.status).toBe('FAILED');
    expect(b.error).toMatch(/Paging limit reached \(3 pages an hour for the team\)/);
  }
  expect(pagesSent()).toBe(3);

  // Never silence: the conversation says so and the team gets a push.
  const core = await getCore('test-paging');
  const notes = await core.conversations.listMessages(blocked[0]!.conversationId);
  expect(notes.some((m) => m.role === 'system' && /Paging limit reached — not paged/.test(m.text))).toBe(
    true,
  );
  const push = stack.emulators!.push;
  await until(async () =>
    push
      .deliveries(stack.demoDevice!.endpoint)
      .some((d) => JSON.stringify(d.payload).includes('Paging limit reached — not paged')),
  );

  // A person decides past the budget: Retry on the held page → a new card, approved → paged.
  const held = blocked[0]!;
  const res = await api(`/api/conversations/${held.conversationId}/actions/${held.id}/retry`);
  expect(res.status).toBe(201);
  const retry = ((await res.json()) as { action: PendingAction }).action;
  expect(retry.status).toBe('PENDING');
  expect((await api(`/api/conversations/${held.conversationId}/actions/${retry.id}/approve`)).status).toBe(
    200,
  );
  await until(async () => (await core.actions.get(held.conversationId, retry.id))?.status === 'EXECUTED');
  expect(pagesSent()).toBe(4);
}, 240_000);

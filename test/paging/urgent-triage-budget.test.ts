import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../../scripts/local/stack';
import { getCore } from '../../shared/src/composition/core';
import { parseConfig } from '../../shared/src/config';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import { judgeUrgency } from '../../shared/src/domain/urgency';

/**
 * Issue 17 "urgent pages respect the paging budget": an emergency the classifier finds without any keyword
 * pages on-call through the same escalate card as a keyword one, so the safety issue's budget (2 an hour
 * here) holds for it too: past the budget nothing is paged and the card fails with the reason.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    schedulerTickMs: 0,
    env: { COOLDOWN_SECONDS: '1', PAGE_BUDGET_PER_HOUR: '2' },
  });
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

/** Texts the company line and waits until the page card of that conversation has an outcome. */
async function emergency(from: string, text: string): Promise<PendingAction> {
  await stack.emulators!.openphone.fireIncomingMessage({ from, text, scheme: 'standard' });
  const core = await getCore('test-urgent-budget');
  return until(async () => {
    const conv = await core.conversations.findByTriggerKey(`sms:${from}`);
    if (!conv) return undefined;
    const page = (await core.actions.listByConversation(conv.id)).find((a) => a.tool === 'escalate');
    return page && ['EXECUTED', 'FAILED'].includes(page.status) ? page : undefined;
  });
}

const TEXTS: Array<[string, string]> = [
  ['+14155550971', "It's raining from my kitchen ceiling and the floor is soaked, please come"],
  ['+14155550972', 'Someone kicked my door in last night and took the TV and my laptop'],
  ['+14155550973', "my neighbor collapsed in the stairwell and isn't answering me"],
];

test('keyword-free emergencies page within the team budget; past it nothing is paged', async () => {
  const keywords = parseConfig({ ...stack.env }).URGENT_KEYWORDS;
  for (const [, text] of TEXTS) expect(judgeUrgency(text, keywords).urgent, text).toBe(false);
  const pagesSent = () => stack.emulators!.twilio.state.messages.length;

  const [first, second, third] = TEXTS;
  expect((await emergency(...first!)).status).toBe('EXECUTED');
  expect((await emergency(...second!)).status).toBe('EXECUTED');
  const held = await emergency(...third!);
  expect(held.status).toBe('FAILED');
  expect(held.error).toMatch(/Paging limit reached \(2 pages an hour for the team\)/);
  expect(pagesSent()).toBe(2);
}, 240_000);

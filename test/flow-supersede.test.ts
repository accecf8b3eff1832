import { afterAll, beforeAll, expect, test } from 'vitest';
import { handler as emailPoll, resetEmailPollDeps } from '../functions/email-poll';
import { DEMO_LEADS_SOURCE } from '../scripts/emulators/seed/google-data';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';
import type { PendingAction } from '../shared/src/contracts/conversations';

/**
 * Cards #18 "drafts that are out of date are withdrawn", on the local stack through the signed webhooks and
 * the email poll: a newer text from the same person, a reply sent from the Quo app (an outgoing copy), and
 * mail the team sent from Gmail in a drafted thread each mark the waiting drafts SUPERSEDED with the reason;
 * never two pending drafts for the same reply.
 */
function middayZone(now = new Date()): string {
  const offset = 12 - now.getUTCHours();
  return offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({
    port: 0,
    schedules: false,
    env: { COOLDOWN_SECONDS: '1', TEAM_TIMEZONE: middayZone() },
  });
  resetEmailPollDeps();
}, 120_000);
afterAll(async () => {
  resetEmailPollDeps();
  await stack?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

const MARIA = '+14155550111';

async function cardsFor(key: string): Promise<PendingAction[]> {
  const core = await getCore('test-supersede');
  const conv = await core.conversations.findByTriggerKey(key);
  return conv ? core.actions.listByConversation(conv.id) : [];
}

test('"heater broken" then "never mind, fixed it": the first draft is withdrawn, never two pending', async () => {
  const op = stack.emulators?.openphone;
  if (!op) throw new Error('no emulators');
  const key = `sms:${MARIA}`;
  const first = await op.fireIncomingMessage({
    from: MARIA,
    text: 'The heater is broken again',
    scheme: 'standard',
  });
  expect(first.status).toBe(202);
  const draft = await until('the first draft', async () =>
    (await cardsFor(key)).find((a) => a.status === 'PENDING'),
  );
  await new Promise((r) => setTimeout(r, 1100)); // past the 1 s cooldown: the second text is a run of its own

  await op.fireIncomingMessage({ from: MARIA, text: 'never mind, fixed it', scheme: 'standard' });
  const withdrawn = await until('the first draft withdrawn', async () => {
    const a = (await cardsFor(key)).find((x) => x.id === draft.id);
    return a?.status === 'SUPERSEDED' ? a : undefined;
  });
  expect(withdrawn.supersededReason).toMatch(
    /^Maria Lopez wrote again before anyone decided: “never mind, fixed it”/,
  );
  // The new run decided afresh, and at no point are two drafts waiting for the same reply.
  await until('the second run done', async () => {
    const core = await getCore('test-supersede');
    const conv = await core.conversations.findByTriggerKey(key);
    const msgs = conv ? await core.conversations.get(conv.id) : undefined;
    return msgs && (await cardsFor(key)).length >= 1 ? true : undefined;
  });
  await new Promise((r) => setTimeout(r, 1500));
  const now = await cardsFor(key);
  expect(now.filter((a) => a.status === 'PENDING').length).toBeLessThanOrEqual(1);
  const core = await getCore('test-supersede');
  const conv = await core.conversations.findByTriggerKey(key);
  expect(conv?.pendingCount).toBe(now.filter((a) => a.status === 'PENDING').length);

  expect(now.filter((a) => a.status === 'PENDING')).toEqual([]);
}, 90_000);

test('a reply sent from the Quo app (an outgoing copy, signed webhook) withdraws the text draft it answers', async () => {
  const op = stack.emulators?.openphone;
  if (!op) throw new Error('no emulators');
  const DAVID = '+14155550112';
  const key = `sms:${DAVID}`;
  await op.fireIncomingMessage({ from: DAVID, text: 'The kitchen sink is leaking', scheme: 'standard' });
  const waiting = await until('the draft', async () =>
    (await cardsFor(key)).find((a) => a.status === 'PENDING'),
  );
  expect(waiting.tool).toBe('send_message');
  const copy = await op.fireAppSentMessage({
    to: DAVID,
    text: 'On my way with a wrench',
    scheme: 'standard',
  });
  expect(copy.status).toBe(202);
  const gone = await until('the draft withdrawn by the Quo reply', async () => {
    const a = (await cardsFor(key)).find((x) => x.id === waiting.id);
    return a?.status === 'SUPERSEDED' ? a : undefined;
  });
  expect(gone.supersededReason).toMatch(/outside Switchboard \(the Quo app\): “On my way with a wrench”/);
  const core = await getCore('test-supersede');
  const conv = await core.conversations.findByTriggerKey(key);
  expect((await core.conversations.get(conv?.id ?? ''))?.pendingCount).toBe(0);
}, 90_000);

test('a reply sent from Gmail in a drafted thread withdraws the thread’s email draft (sent-mail poll)', async () => {
  const google = stack.emulators?.google;
  if (!google) throw new Error('no emulators');
  const { threadId } = google.state.deliverEmail({
    from: `Zillow Rentals <${DEMO_LEADS_SOURCE}>`,
    subject: 'New lead: Dan Wu is interested in 48 Elm Ave #3',
    text: 'Dan Wu wants to see 48 Elm Ave #3.\nEmail: dan.wu@mail.example\nMove-in: July 1. Credit score (self-reported): 720. Pets: none.',
  });
  await emailPoll({ source: 'leads' });
  const key = `email:${threadId}`;
  const draft = await until('the lead draft', async () =>
    (await cardsFor(key)).find((a) => a.status === 'PENDING'),
  );
  // Sam answers the lead from Gmail, in the same thread.
  google.state.deliverEmail({
    from: 'Sam Chen <sam@oakproperties.example>',
    to: 'dan.wu@mail.example',
    subject: 'Re: New lead: Dan Wu is interested in 48 Elm Ave #3',
    text: 'Hi Dan, happy to show you the unit on Saturday.',
    labelIds: ['SENT'],
    threadId,
  });
  const polled = await emailPoll({ source: 'sent' });
  expect(polled.enqueued).toBeGreaterThanOrEqual(1);
  const gone = await until('the email draft withdrawn', async () => {
    const a = (await cardsFor(key)).find((x) => x.id === draft.id);
    return a?.status === 'SUPERSEDED' ? a : undefined;
  });
  expect(gone.supersededReason).toMatch(/^Sam Chen replied in this thread from Gmail/);
  // Sent mail never starts a triage run: no new draft appears in the thread.
  await new Promise((r) => setTimeout(r, 1000));
  expect((await cardsFor(key)).filter((a) => a.status === 'PENDING')).toEqual([]);
}, 90_000);

import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { handler as emailPoll, resetEmailPollDeps } from '../functions/email-poll';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { buildMessageReceived, signDelivery } from '../scripts/simulate-sms';
import { makeSqsClient } from '../shared/src/adapters/sqs-event-queue';
import { getCore } from '../shared/src/composition/core';
import type { PendingAction } from '../shared/src/contracts/conversations';

/**
 * Issue 17's "done when", on the local stack (`npm start` minus the browser), rules mode: texts through the
 * signed OpenPhone webhook and emails through the Gmail emulator and the poll, triaged by the trained
 * classifier in the worker.
 */

/** A zone where it is about noon now, so the polls and quiet hours never get in the way of the test. */
function middayZone(now = new Date()): string {
  const offset = 12 - now.getUTCHours();
  return offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false, env: { TEAM_TIMEZONE: middayZone() } });
  resetEmailPollDeps();
}, 120_000);
afterAll(async () => {
  resetEmailPollDeps();
  await stack?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function text(from: string, body: string): Promise<string> {
  const d = buildMessageReceived({ from, to: '+14155550100', text: body, scheme: 'standard' });
  const headers = signDelivery({
    rawBody: d.rawBody,
    secret: stack.env.OPENPHONE_WEBHOOK_SECRET ?? '',
    scheme: 'standard',
  });
  const res = await fetch(`${stack.url}/webhooks/openphone`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: d.rawBody,
  });
  expect(res.status).toBe(202);
  return `sms_${d.eventId}`;
}

async function cardsFor(key: string): Promise<PendingAction[]> {
  const core = await getCore('test-triage');
  return until(`a card on ${key}`, async () => {
    const conv = await core.conversations.findByTriggerKey(key);
    const cards = conv ? await core.actions.listByConversation(conv.id) : [];
    return cards.length ? cards : undefined;
  });
}

test('a flood described without any keyword pages on-call', async () => {
  const twilio = stack.emulators?.twilio;
  if (!twilio) throw new Error('the stack runs without emulators');
  const before = twilio.state.messages.length;
  await text('+14155550171', "It's raining from my kitchen ceiling and the floor is soaked, please come");
  const pages = await until('the page', async () => {
    const p = twilio.state.messages.slice(before);
    return p.length ? p : undefined;
  });
  expect(pages.map((p) => p.to)).toEqual(['+14155550103']);
  const cards = await cardsFor('sms:+14155550171');
  expect(cards.find((c) => c.tool === 'escalate')?.args.reason).toMatch(/water emergency/);
  // The inbox marker says when on-call was paged (issue 19), written with the turn.
  const core = await getCore('test-triage');
  const conv = await until('urgent.pagedAt', async () => {
    const c = await core.conversations.findByTriggerKey('sms:+14155550171');
    return c?.urgent?.pagedAt ? c : undefined;
  });
  expect(conv.urgent?.reason).toMatch(/ceiling/);
}, 90_000);

test('a break-in told in the past tense, without any keyword, pages on-call', async () => {
  const twilio = stack.emulators?.twilio;
  if (!twilio) throw new Error('the stack runs without emulators');
  const before = twilio.state.messages.length;
  await text(
    '+14155550179',
    'we came home and someone got in through the back window, the TV and laptop are gone',
  );
  const pages = await until('the page', async () => {
    const p = twilio.state.messages.slice(before).filter((m) => m.to === '+14155550103');
    return p.length ? p : undefined;
  });
  expect(pages).toHaveLength(1);
  const cards = await cardsFor('sms:+14155550179');
  expect(cards.find((c) => c.tool === 'escalate')?.args.reason).toMatch(/security emergency/);
}, 90_000);

test('an emergency by email, without a keyword, pages on-call and the reply says so', async () => {
  const { twilio, google } = stack.emulators ?? {};
  if (!twilio || !google) throw new Error('the stack runs without emulators');
  const before = twilio.state.messages.length;
  const mail = google.state.deliverEmail({
    from: 'Priya Nair <priya.nair@mail.example>',
    subject: 'Unit 2B',
    text: 'Water is pouring out of the light fixture in my bathroom ceiling and the floor is soaked. Please send someone.',
  });
  await emailPoll({ source: 'general' });
  const pages = await until('the page', async () => {
    const p = twilio.state.messages.slice(before);
    return p.length ? p : undefined;
  });
  expect(pages.map((p) => p.to)).toEqual(['+14155550103']);
  const cards = await until('the reply card', async () => {
    const all = await cardsFor(`email:${mail.threadId}`);
    return all.some((c) => c.tool === 'send_email') ? all : undefined;
  });
  const reply = cards.find((c) => c.tool === 'send_email');
  expect(String(reply?.args.body)).toMatch(
    /^Hi Priya,\n\nWe got your email about the water emergency[\s\S]*on-call person has been alerted/,
  );
  const core = await getCore('test-triage');
  const conv = await core.conversations.findByTriggerKey(`email:${mail.threadId}`);
  expect(conv?.urgent?.reason).toBe('Unit 2B');
}, 90_000);

test('an unknown number asking about a unit gets a create-contact-and-reply card', async () => {
  const from = '+14155550172';
  await text(from, 'Hello, I saw your listing on Craigslist, is the studio still available?');
  const cards = await cardsFor(`sms:${from}`);
  expect(cards.map((c) => [c.tool, c.status])).toEqual([['welcome_contact', 'PENDING']]);
  expect(cards[0]?.args).toMatchObject({ phone: from, role: 'prospect' });
  expect(cards[0]?.summary).toMatch(
    /^Add \+14155550172 as a contact \(prospect, \+14155550172\), then text: “Hi, thanks/,
  );
  // The reply offers free showing times read from the calendar's free/busy (Google emulator), not "soon".
  expect(String(cards[0]?.args.text)).toMatch(
    /We can show you the place on \w{3} \d{1,2} \w{3} at \d\d:\d\d(, \w{3} \d{1,2} \w{3} at \d\d:\d\d)* or \w{3} \d{1,2} \w{3} at \d\d:\d\d/,
  );
  // What it read is in the conversation's activity, before the card: the contact lookup and the free times.
  const core = await getCore('test-triage');
  const conv = await core.conversations.findByTriggerKey(`sms:${from}`);
  const reads = (await core.conversations.listMessages(conv?.id as string)).filter((m) =>
    m.id.startsWith('m_read_'),
  );
  // …and the policy's verdict on what they said (nothing yet: the reply asks what the policy needs).
  expect(reads.map((m) => [m.role, m.tool?.name])).toEqual([
    ['tool', 'search_contacts'],
    ['tool', 'find_free_slots'],
    ...Array(6).fill(['tool', 'ask_policy']),
  ]);
  expect(String(cards[0]?.args.text)).toMatch(/could you tell us your approximate credit score/);
  const result = reads[1]?.tool?.result as { slots?: { label: string }[] } | undefined;
  const offered = (result?.slots ?? []).map((x) => x.label);
  expect(offered.length).toBeGreaterThan(0);
  expect(String(cards[0]?.args.text)).toContain(offered[0]);
}, 90_000);

test('a lead in the general inbox gets its qualification; a newsletter leaves no conversation', async () => {
  const google = stack.emulators?.google;
  if (!google) throw new Error('the stack runs without emulators');
  const lead = google.state.deliverEmail({
    from: 'Dana Reyes <dana.reyes@mail.example>',
    subject: 'Question about 48 Elm Ave #3',
    text: 'Hello, I am interested in renting 48 Elm Ave #3. My credit score is 745, I have one cat, and I would like to move in June 1. Is it still available?',
  });
  const newsletter = google.state.deliverEmail({
    from: 'Landlord Weekly <hello@landlordweekly.example>',
    subject: 'Your December issue: 5 ways to winterize your rentals',
    text: 'This month: winter checklists, a webinar on fair housing, and 20% off smart thermostats for members. View in browser. Unsubscribe or manage your email preferences.',
  });
  const poll = await emailPoll({ source: 'general' });
  expect(poll.enqueued).toBeGreaterThanOrEqual(2);

  const cards = await cardsFor(`email:${lead.threadId}`);
  expect(cards.map((c) => [c.tool, c.status])).toEqual([['send_email', 'PENDING']]);
  const card = cards[0] as PendingAction;
  expect(card.args.to).toBe('dana.reyes@mail.example');
  expect(String(card.args.body)).toMatch(/^Hi Dana,[\s\S]*you meet our rental criteria/);
  // The invitation offers free showing times from the calendar's free/busy, read in the lead's first round.
  expect(String(card.args.body)).toMatch(
    /We have openings on \w{3} \d{1,2} \w{3} at \d\d:\d\d[^.]*\. Which of these times would work for you for a showing\?/,
  );
  expect(card.policy?.why[0]).toBe('Policy answer: qualified_lead(lead_of_interest) holds');

  // Once the queue is empty, both emails have been through the worker: the newsletter ended silently.
  const sqs = makeSqsClient({ region: 'us-east-1', endpoint: stack.env.SQS_ENDPOINT });
  try {
    await until('the queue to drain', async () => {
      const r = await sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: stack.env.EVENTS_QUEUE_URL,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      );
      const a = r.Attributes ?? {};
      return Number(a.ApproximateNumberOfMessages) + Number(a.ApproximateNumberOfMessagesNotVisible) === 0
        ? true
        : undefined;
    });
  } finally {
    sqs.destroy();
  }
  const core = await getCore('test-triage');
  expect(await core.conversations.findByTriggerKey(`email:${newsletter.threadId}`)).toBeUndefined();
}, 120_000);

import { afterAll, beforeAll, expect, test } from 'vitest';
import { handler as emailPoll, resetEmailPollDeps } from '../functions/email-poll';
import { DEMO_LEADS_SOURCE } from '../scripts/emulators/seed/google-data';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';
import type { PendingAction } from '../shared/src/contracts/conversations';

/**
 * Cards #18 on the local stack, through the API as the PWA calls it: a lead whose card asks the team two
 * questions reaches an invitation with one tap per question; "Redraft…" with "say Saturday 11am" and a deny
 * with a reason each produce a new draft (rules mode); the replaced cards are SUPERSEDED / DENIED, never two
 * pending at once, and approving the last one sends exactly that text, once.
 */

/** A zone where it is about noon now, so the leads poll (08:00–20:00 team time) runs whenever the test does. */
function middayZone(now = new Date()): string {
  const offset = 12 - now.getUTCHours();
  return offset === 0 ? 'Etc/GMT' : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

let stack: LocalStack;
let token: string;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false, env: { TEAM_TIMEZONE: middayZone() } });
  resetEmailPollDeps();
  const session = await fetch(`${stack.url}/api/dev/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'sam@oakproperties.example' }),
  });
  token = ((await session.json()) as { token: string }).token;
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

async function post(path: string, body: unknown) {
  const res = await fetch(`${stack.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { action?: PendingAction; error?: unknown } };
}

async function cards(conversationId: string) {
  const core = await getCore('test-cards');
  return core.actions.listByConversation(conversationId);
}

/** The one PENDING card other than `after`, once the worker has drafted it. */
async function nextPending(conversationId: string, after?: string): Promise<PendingAction> {
  return until('the new draft', async () => {
    const all = await cards(conversationId);
    const pending = all.filter((a) => a.status === 'PENDING');
    expect(pending.length).toBeLessThanOrEqual(1);
    return pending[0] && pending[0].id !== after ? pending[0] : undefined;
  });
}

const route = (a: PendingAction, verb: string) =>
  `/api/conversations/${a.conversationId}/actions/${a.id}/${verb}`;

test('a lead card with open questions reaches an invitation, one tap per question; redraft and deny-with-reason redraft', async () => {
  const google = stack.emulators?.google;
  if (!google) throw new Error('the stack runs without emulators');
  const { threadId } = google.state.deliverEmail({
    from: `Zillow Rentals <${DEMO_LEADS_SOURCE}>`,
    subject: 'New lead: Cara Singh is interested in 48 Elm Ave #3',
    text: 'Cara Singh wants to see 48 Elm Ave #3.\nEmail: cara.singh@mail.example\nMove-in: July 1. Credit score (self-reported): 640. Pets: we have a rabbit.',
  });
  await emailPoll({ source: 'leads' });
  const core = await getCore('test-cards');
  const conv = await until('the lead conversation', () =>
    core.conversations.findByTriggerKey(`email:${threadId}`),
  );
  const hold = await nextPending(conv.id);
  expect(String(hold.args.body)).toMatch(/a member of our team is reviewing them/);
  expect(hold.policy?.questions?.map((q) => q.recordAs)).toEqual([
    'credit_review_passed("cara.singh@mail.example")',
    'pet_approved("cara.singh@mail.example", rabbit)',
  ]);

  // An answer to a question the card does not ask is refused: a person establishes only what was asked.
  const foreign = await post(route(hold, 'answer'), { answers: [{ recordAs: 'credit_score("x", 800)' }] });
  expect(foreign.status).toBe(400);

  // Tap 1: the credit review passes. The card is withdrawn and a new one still asks about the rabbit.
  const first = await post(route(hold, 'answer'), {
    answers: [{ recordAs: 'credit_review_passed("cara.singh@mail.example")', holds: true }],
  });
  expect(first.status).toBe(200);
  expect(first.json.action?.status).toBe('SUPERSEDED');
  const second = await nextPending(conv.id, hold.id);
  expect(second.redraft).toMatchObject({ kind: 'answer', fromActionId: hold.id });
  expect(second.policy?.questions?.map((q) => q.recordAs)).toEqual([
    'pet_approved("cara.singh@mail.example", rabbit)',
  ]);
  // A second tap on the withdrawn card is a 409, not a second redraft.
  const late = await post(route(hold, 'answer'), {
    answers: [{ recordAs: 'credit_review_passed("cara.singh@mail.example")', holds: true }],
  });
  expect(late.status).toBe(409);

  // Tap 2: the rabbit is fine → the policy qualifies the lead → the draft is an invitation.
  await post(route(second, 'answer'), {
    answers: [{ recordAs: 'pet_approved("cara.singh@mail.example", rabbit)', holds: true }],
  });
  const invite = await nextPending(conv.id, second.id);
  // The invitation offers the calendar's free times (Google emulator free/busy), not an open question.
  expect(String(invite.args.body)).toMatch(
    /you meet our rental criteria[\s\S]*We have openings on [^.]+\. Which of these times would work for you for a showing\?/,
  );
  expect(invite.policy?.why[0]).toBe('Policy answer: qualified_lead(lead_of_interest) holds');
  expect(invite.policy?.why.join('\n')).toMatch(
    /credit_review_passed\("cara.singh@mail.example"\) — answered by Sam Chen/,
  );
  // The link to the successor is written just after the new card appears (same worker step): poll for it.
  await expect
    .poll(async () => (await cards(conv.id)).find((a) => a.id === second.id)?.supersededBy)
    .toBe(invite.id);

  // "Redraft…" with a day and a time: the template proposes them instead of asking.
  const asked = await post(route(invite, 'redraft'), { instruction: 'say Saturday 11am' });
  expect(asked.status).toBe(200);
  const saturday = await nextPending(conv.id, invite.id);
  expect(String(saturday.args.body)).toContain('Would Saturday at 11:00 AM work for you for a showing?');
  expect(String(saturday.args.body)).not.toContain('We have openings');
  expect(saturday.redraft).toMatchObject({
    kind: 'redraft',
    instruction: 'say Saturday 11am',
    applied: ['day: Saturday', 'time: 11:00 AM'],
    notApplied: [],
  });

  // What the rules cannot apply is said plainly (the PWA opens the edit box on it).
  await post(route(saturday, 'redraft'), { instruction: 'mention the parking spot' });
  const parking = await nextPending(conv.id, saturday.id);
  expect(parking.redraft?.notApplied).toEqual(['mention the parking spot']);
  // Each redraft starts from the draft the person saw: Saturday stays.
  expect(String(parking.args.body)).toContain('Would Saturday at 11:00 AM work');

  // A deny with a reason feeds the next draft.
  const denied = await post(route(parking, 'deny'), { reason: 'shorter please' });
  expect(denied.json.action?.status).toBe('DENIED');
  const short = await nextPending(conv.id, parking.id);
  expect(short.redraft).toMatchObject({ kind: 'deny', applied: ['shorter'] });
  expect(String(short.args.body).length).toBeLessThan(String(parking.args.body).length);

  // A deny without a reason only stops.
  const sentBefore = google.state.sent().length;
  const approved = await post(route(short, 'approve'), {});
  expect(approved.json.action?.status).toBe('APPROVED');
  await until('the invitation sent', async () =>
    google.state.sent().length > sentBefore ? true : undefined,
  );
  const sent = google.state.sent().slice(sentBefore);
  expect(sent).toHaveLength(1);
  const statuses = (await cards(conv.id)).map((a) => a.status).sort();
  expect(statuses.filter((s) => s === 'PENDING')).toEqual([]);
  expect(statuses.filter((s) => s === 'SUPERSEDED')).toHaveLength(4);
}, 120_000);

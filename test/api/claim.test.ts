import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ApiHarness, MEMBER, startApiHarness } from './harness';
import { seedInboundSms } from './seed';

/**
 * Cards #18 "I'm on it" through the API: a claim names the person on the card and the conversation (the
 * inbox's "Mine"), another person's later claim replaces it, nobody is locked out of deciding, and a decided
 * card cannot be claimed (409 with the card).
 */
let h: ApiHarness;
let sam: string;
let jo: string;
beforeAll(async () => {
  h = await startApiHarness();
  sam = await h.token(MEMBER, { name: 'Sam Chen' });
  jo = await h.token('jo@oakproperties.example', { name: 'Jo Patel' });
}, 60_000);
afterAll(async () => h?.stop());

type Card = { status: string; claim?: { by: string; name: string } };
type Out = { action?: Card; error?: { code: string; details?: { action?: Card } } };

test('a claim is shown to the team, a later one replaces it, and the other person can still decide', async () => {
  const { conversation, action } = await seedInboundSms(h.core);
  const base = `/api/conversations/${conversation.id}/actions/${action.id}`;
  const first = await h.call('POST', `${base}/claim`, { token: sam });
  expect(first.status).toBe(200);
  expect(((await first.json()) as Out).action?.claim?.name).toBe('Sam Chen');
  const samId = (await h.core.actions.get(conversation.id, action.id))?.claim?.by;
  expect((await h.core.conversations.get(conversation.id))?.claimedBy).toBe(samId);
  const mine = await h.call('GET', '/api/conversations?filter=mine', { token: sam });
  expect(
    ((await mine.json()) as { conversations: Array<{ id: string }> }).conversations.map((c) => c.id),
  ).toContain(conversation.id);

  const second = await h.call('POST', `${base}/claim`, { token: jo });
  expect(((await second.json()) as Out).action).toMatchObject({
    status: 'PENDING',
    claim: { name: 'Jo Patel' },
  });
  const audit = await h.core.audit.list(conversation.id);
  // Two audit entries may share a millisecond: compare as a set, not in order.
  expect(
    audit
      .filter((a) => a.type === 'card.claimed')
      .map((a) => a.actor)
      .sort(),
  ).toEqual(['jo@oakproperties.example', MEMBER].sort());

  // A claim is not a lock: Sam denies Jo's card; claiming it afterwards is a 409 carrying the card.
  expect((await h.call('POST', `${base}/deny`, { token: sam, body: {} })).status).toBe(200);
  const late = await h.call('POST', `${base}/claim`, { token: jo });
  expect(late.status).toBe(409);
  expect(((await late.json()) as Out).error?.details?.action?.status).toBe('DENIED');
});

test('an unknown card is 404 and no session is 401', async () => {
  const { conversation } = await seedInboundSms(h.core);
  expect(
    (await h.call('POST', `/api/conversations/${conversation.id}/actions/nope/claim`, { token: sam })).status,
  ).toBe(404);
  expect((await h.call('POST', `/api/conversations/${conversation.id}/actions/nope/claim`)).status).toBe(401);
});

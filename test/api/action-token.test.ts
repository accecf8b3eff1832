import { afterAll, beforeAll, expect, test } from 'vitest';
import { actionTokenKey, mintActionToken } from '../../shared/src/domain/action-token';
import { type ApiHarness, startApiHarness } from './harness';
import { seedInboundSms } from './seed';

/**
 * Cards #18, the notification action's token through the session-less `…/by-token` route: each refusal
 * branch answers its own status and leaves the card PENDING for the app — a token for another card (403),
 * a token whose argument hash is not the card's (the draft changed since the push: 409 with the card), a
 * forged or expired one (401); then a good one decides exactly once (a second use: 409).
 */
let h: ApiHarness;
let key: Buffer;
beforeAll(async () => {
  h = await startApiHarness();
  // The harness's VAPID private key: the worker derives the same key when it mints the push's token.
  key = actionTokenKey('never-in-a-response');
}, 60_000);
afterAll(async () => h?.stop());

const PERSON = { u: 'user_sam', m: 'sam@oakproperties.example', n: 'Sam Chen' };
const later = () => Math.floor(Date.now() / 1000) + 600;

async function seeded() {
  const { conversation, action } = await seedInboundSms(h.core);
  const claims = { a: action.id, c: conversation.id, h: action.argsHash, ...PERSON, e: later() };
  const path = `/api/conversations/${conversation.id}/actions/${action.id}/by-token`;
  return { conversation, action, claims, path };
}

const use = (path: string, token: string, decision: 'approve' | 'deny' = 'deny') =>
  h.call('POST', path, { body: { token, decision } });

test('a token minted for another card is refused with 403; the card still waits', async () => {
  const one = await seeded();
  const other = await seeded();
  const res = await use(one.path, mintActionToken(key, other.claims));
  expect(res.status).toBe(403);
  expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/another card/);
  expect((await h.core.actions.get(one.conversation.id, one.action.id))?.status).toBe('PENDING');
  // Same card id, another conversation: also another card.
  const crossed = mintActionToken(key, { ...one.claims, c: other.conversation.id });
  expect((await use(one.path, crossed)).status).toBe(403);
});

test('a token for the draft as it was before a change is a 409 carrying the card; nothing is decided', async () => {
  const { conversation, action, claims, path } = await seeded();
  const res = await use(
    path,
    mintActionToken(key, { ...claims, h: `${claims.h.slice(0, -4)}beef` }),
    'approve',
  );
  expect(res.status).toBe(409);
  const body = (await res.json()) as { error: { message: string }; action?: { status: string } };
  expect(body.error.message).toMatch(/draft changed/);
  expect((await h.core.actions.get(conversation.id, action.id))?.status).toBe('PENDING');
});

test('forged and expired tokens are 401; a good one decides once as its person, the second use is 409', async () => {
  const { conversation, action, claims, path } = await seeded();
  const good = mintActionToken(key, claims);
  const forged = `${good.split('.')[0]}.${'A'.repeat(43)}`;
  expect((await use(path, forged)).status).toBe(401);
  const expired = mintActionToken(key, { ...claims, e: Math.floor(Date.now() / 1000) - 1 });
  expect((await use(path, expired)).status).toBe(401);
  expect((await use(path, 'not-a-token')).status).toBe(401);
  expect((await use(path, good)).status).toBe(200);
  const again = await use(path, good);
  expect(again.status).toBe(409);
  const stored = await h.core.actions.get(conversation.id, action.id);
  expect(stored).toMatchObject({ status: 'DENIED', decidedBy: PERSON.m, decidedByName: PERSON.n });
});

test('bad bodies are 400, never a decision', async () => {
  const { claims, path } = await seeded();
  const token = mintActionToken(key, claims);
  expect((await h.call('POST', path, { body: { token, decision: 'maybe' } })).status).toBe(400);
  expect((await h.call('POST', path, { body: { decision: 'approve' } })).status).toBe(400);
  expect((await h.call('POST', path, { body: 'not json' })).status).toBe(400);
});

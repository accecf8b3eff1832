import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ApiHarness, MEMBER, startApiHarness } from '../api/harness';

/** A person says where a lead stands: one POST, audited under their address; bad input is a clear 4xx. */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

test('a member marks a lead "not a fit"; the property is kept; bad state 400, unknown 404, no session 401', async () => {
  const at = new Date().toISOString();
  await h.core.conversations.create({
    id: 'c_lead',
    title: 'Tom Becker',
    source: 'sms',
    preview: 'Tom Becker: is the 2 bedroom at 48 Elm Ave still available?',
    createdAt: at,
    updatedAt: at,
    lastMessageAt: at,
    createdBy: 'system',
    lead: { state: 'invited', updatedAt: at, property: '48 Elm Ave' },
    pendingCount: 0,
    readBy: {},
  });
  const token = await h.token(MEMBER, { name: 'Sam Chen' });
  const path = '/api/conversations/c_lead/lead';
  expect((await h.call('POST', path, { body: { state: 'disqualified' } })).status).toBe(401);
  const bad = await h.call('POST', path, { token, body: { state: 'maybe' } });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(await bad.json())).toContain('state');
  const missing = await h.call('POST', '/api/conversations/c_nope/lead', {
    token,
    body: { state: 'disqualified' },
  });
  expect(missing.status).toBe(404);

  const ok = await h.call('POST', path, { token, body: { state: 'disqualified' } });
  expect(ok.status).toBe(200);
  expect((await ok.json()).lead).toMatchObject({ state: 'disqualified', property: '48 Elm Ave' });
  expect((await h.core.conversations.get('c_lead'))?.lead?.state).toBe('disqualified');
  const audit = await h.core.audit.list('c_lead');
  expect(audit.filter((e) => e.type === 'lead.state')).toEqual([
    expect.objectContaining({
      actor: MEMBER,
      data: expect.objectContaining({ state: 'disqualified' }),
    }),
  ]);
  // Saying it again changes nothing and writes no second audit entry.
  expect((await h.call('POST', path, { token, body: { state: 'disqualified' } })).status).toBe(200);
  expect((await h.core.audit.list('c_lead')).filter((e) => e.type === 'lead.state')).toHaveLength(1);
});

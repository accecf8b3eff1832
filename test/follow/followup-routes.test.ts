import { afterAll, beforeAll, expect, test } from 'vitest';
import { type ApiHarness, MEMBER, startApiHarness } from '../api/harness';

/** The conversation lists its scheduled checks; Cancel is one POST, conditional on "still scheduled". */
let h: ApiHarness;
beforeAll(async () => {
  h = await startApiHarness();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

test('a scheduled check is listed with its conversation and cancelled once; a second cancel is a 409', async () => {
  const at = new Date().toISOString();
  await h.core.conversations.create({
    id: 'c_fu',
    title: 'Maria Lopez',
    source: 'chat',
    preview: 'text Maria tomorrow',
    createdAt: at,
    updatedAt: at,
    lastMessageAt: at,
    createdBy: 'u_sam',
    pendingCount: 0,
    readBy: {},
  });
  await h.core.followups.create({
    id: 'fu_1',
    conversationId: 'c_fu',
    actionId: 'a_1',
    kind: 'text',
    to: '+14155550111',
    toName: 'Maria Lopez',
    text: 'Hi Maria, still waiting on the plumber.',
    at: '2030-01-02T14:00:00.000Z',
    condition: { kind: 'no_reply', from: '+14155550121', name: 'Bob Martinez', since: at },
    status: 'scheduled',
    createdAt: at,
    updatedAt: at,
  });
  const token = await h.token(MEMBER, { name: 'Sam Chen' });
  const detail = await (await h.call('GET', '/api/conversations/c_fu', { token })).json();
  expect(detail.followups).toEqual([expect.objectContaining({ id: 'fu_1', status: 'scheduled' })]);

  expect((await h.call('POST', '/api/conversations/c_fu/followups/fu_1/cancel')).status).toBe(401);
  const ok = await h.call('POST', '/api/conversations/c_fu/followups/fu_1/cancel', { token });
  expect(ok.status).toBe(200);
  expect((await ok.json()).followup).toMatchObject({ status: 'cancelled', note: 'Cancelled by Sam Chen' });
  const again = await h.call('POST', '/api/conversations/c_fu/followups/fu_1/cancel', { token });
  expect(again.status).toBe(409);
  expect((await again.json()).error.message).toBe('This follow-up is already cancelled.');
  expect((await h.call('POST', '/api/conversations/c_fu/followups/nope/cancel', { token })).status).toBe(404);
  const messages = (await h.core.conversations.listMessages('c_fu')).map((m) => m.text);
  expect(messages).toContain('Sam Chen cancelled the scheduled text to Maria Lopez.');
});

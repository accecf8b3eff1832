import { afterAll, beforeAll, expect, test } from 'vitest';
import { listConversationsResponse, searchResponse } from '../../shared/src/contracts/api';
import {
  deleteConversationResponse,
  deletionPreview,
  deletionsResponse,
} from '../../shared/src/contracts/deletion';
import { ADMIN, type ApiHarness, MEMBER, startApiHarness } from './harness';
import { seedInboundSms } from './seed';

/**
 * Issue 19's admin delete through the API: admins only, the id typed again, and afterwards the conversation is
 * gone from its own route, the inbox and search, with a tombstone in the admins' list.
 */
let h: ApiHarness;
let member: string;
let admin: string;
beforeAll(async () => {
  h = await startApiHarness();
  member = await h.token(MEMBER, { name: 'Sam Chen' });
  admin = await h.token(ADMIN, { name: 'Alex Rivera' });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

test('admin delete: preview, refuse a wrong confirmation, erase, then gone from the inbox and search', async () => {
  const { conversation } = await seedInboundSms(h.core, {
    contact: { name: 'Zebulon Privacy', phone: '+14155550166' },
    text: 'Please remove everything you hold about me, the xylophone noise complaint too',
  });
  const id = conversation.id;
  // Search knows it before (the corpus is warm in this container).
  const before = searchResponse.parse(
    await (await h.call('GET', '/api/search?q=xylophone', { token: member })).json(),
  );
  expect(before.results.map((r) => r.conversation.id)).toContain(id);

  expect((await h.call('GET', `/api/admin/conversations/${id}/deletion`, { token: member })).status).toBe(
    403,
  );
  expect(
    (await h.call('POST', `/api/admin/conversations/${id}/delete`, { token: member, body: { confirm: id } }))
      .status,
  ).toBe(403);
  const preview = deletionPreview.parse(
    await (await h.call('GET', `/api/admin/conversations/${id}/deletion`, { token: admin })).json(),
  );
  expect(preview).toMatchObject({ conversationId: id, pendingCards: 1, counts: { cards: 1 } });
  expect(preview.counts.messages).toBeGreaterThan(0);

  for (const body of [{}, { confirm: 'c_other' }, { confirm: 42 }]) {
    const res = await h.call('POST', `/api/admin/conversations/${id}/delete`, { token: admin, body });
    expect(res.status, JSON.stringify(body)).toBe(400);
  }
  expect((await h.call('GET', `/api/conversations/${id}`, { token: member })).status).toBe(200);

  const res = await h.call('POST', `/api/admin/conversations/${id}/delete`, {
    token: admin,
    body: { confirm: id },
  });
  expect(res.status).toBe(200);
  const { tombstone } = deleteConversationResponse.parse(await res.json());
  expect(tombstone).toMatchObject({ conversationId: id, deletedBy: ADMIN, state: 'deleted' });
  expect(tombstone.erased?.cards).toBe(1);

  expect((await h.call('GET', `/api/conversations/${id}`, { token: member })).status).toBe(404);
  const inbox = listConversationsResponse.parse(
    await (await h.call('GET', '/api/conversations', { token: member })).json(),
  );
  expect(inbox.conversations.map((c) => c.id)).not.toContain(id);
  const after = searchResponse.parse(
    await (await h.call('GET', '/api/search?q=xylophone', { token: member })).json(),
  );
  expect(after.results.map((r) => r.conversation.id)).not.toContain(id);
  const list = deletionsResponse.parse(
    await (await h.call('GET', '/api/admin/deletions', { token: admin })).json(),
  );
  expect(list.tombstones[0]).toMatchObject({ conversationId: id, deletedBy: ADMIN });
  expect(JSON.stringify(list)).not.toContain('Zebulon');
  // A retried request answers the same tombstone; an unknown id is a 404.
  const again = await h.call('POST', `/api/admin/conversations/${id}/delete`, {
    token: admin,
    body: { confirm: id },
  });
  expect(deleteConversationResponse.parse(await again.json()).tombstone).toEqual(tombstone);
  const unknown = await h.call('POST', '/api/admin/conversations/c_nope/delete', {
    token: admin,
    body: { confirm: 'c_nope' },
  });
  expect(unknown.status).toBe(404);
});

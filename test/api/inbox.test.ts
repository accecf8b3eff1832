import { afterAll, beforeAll, expect, test } from 'vitest';
import { listConversationsResponse, searchResponse } from '../../shared/src/contracts/api';
import type { Conversation } from '../../shared/src/contracts/conversations';
import { newId } from '../../shared/src/ids';
import { conversationExport } from '../../shared/src/use-cases/export-conversation';
import { ADMIN, type ApiHarness, MEMBER, startApiHarness } from './harness';
import { seedInboundSms } from './seed';

/** The inbox API of issue 19: order by what needs a person, filters, paging, search, previews. */
let h: ApiHarness;
let token: string;
beforeAll(async () => {
  h = await startApiHarness();
  token = await h.token(MEMBER, { name: 'Sam Chen' });
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
function plain(name: string, minutesAgo: number, extra: Partial<Conversation> = {}): Conversation {
  return {
    id: newId('c_'),
    title: name,
    source: 'sms',
    contact: { name, phone: `+1415555${String(Math.floor(1000 + Math.random() * 8999))}` },
    preview: `${name}: hello`,
    createdAt: at(minutesAgo),
    updatedAt: at(minutesAgo),
    lastMessageAt: at(minutesAgo),
    createdBy: 'system',
    pendingCount: 0,
    readBy: {},
    ...extra,
  };
}

async function list(query = '') {
  const res = await h.call('GET', `/api/conversations${query}`, { token });
  expect(res.status).toBe(200);
  return listConversationsResponse.parse(await res.json());
}

test('urgent first, then cards waiting, then by time; done leaves the default view; filters', async () => {
  const recent = plain('Recent Rob', 1);
  const urgent = plain('Flood Fran', 30, { urgent: { at: at(30), reason: 'flooding', pagedAt: at(29) } });
  const done = plain('Done Dana', 2, { status: 'done' });
  const lead = plain('Lead Lou', 3, {
    lead: { state: 'new', updatedAt: at(3) },
    assignee: 'someone-else',
  });
  for (const c of [recent, urgent, done, lead]) await h.core.conversations.create(c);
  const { conversation: waiting } = await seedInboundSms(h.core, { at: new Date(Date.now() - 20 * 60_000) });

  const ids = (await list()).conversations.map((c) => c.id);
  expect(ids.slice(0, 2)).toEqual([urgent.id, waiting.id]);
  expect(ids.indexOf(recent.id)).toBeLessThan(ids.indexOf(lead.id));
  expect(ids).not.toContain(done.id);

  expect((await list('?filter=urgent')).conversations.map((c) => c.id)).toEqual([urgent.id]);
  expect((await list('?filter=needs_approval')).conversations.map((c) => c.id)).toEqual([waiting.id]);
  expect((await list('?filter=leads')).conversations.map((c) => c.id)).toEqual([lead.id]);
  expect((await list('?filter=done')).conversations.map((c) => c.id)).toEqual([done.id]);
  const first = (await list()).conversations[0];
  expect(first?.urgent?.pagedAt).toBeDefined();
});

test('paging past the first page with a cursor; a forged cursor or unknown filter is a 400', async () => {
  for (let i = 0; i < 5; i++) await h.core.conversations.create(plain(`Page ${i}`, 100 + i));
  const page1 = await list('?limit=3');
  // Three by time, plus any open urgent conversation (first test's flood), which leads page one however old.
  expect(page1.conversations.filter((c) => !c.urgent)).toHaveLength(3);
  expect(page1.nextCursor).toBeDefined();
  const page2 = await list(`?limit=3&cursor=${page1.nextCursor}`);
  expect(page2.conversations.map((c) => c.id)).not.toContain(page1.conversations[0]?.id);
  for (const bad of ['?cursor=bm9wZQ', '?filter=everything']) {
    const res = await h.call('GET', `/api/conversations${bad}`, { token });
    expect(res.status).toBe(400);
  }
});

test('previews are people’s words: the assistant’s summary never replaces the tenant’s text', async () => {
  const { conversation } = await seedInboundSms(h.core, {
    contact: { name: 'Priya Patel', phone: '+14155550190' },
    text: 'The garage door will not close\nIt makes a grinding noise',
  });
  const row = (await list()).conversations.find((c) => c.id === conversation.id);
  expect(row?.preview).toBe('Priya Patel: The garage door will not close');
});

test('search finds an older text, with the matched terms for highlighting; an empty query is a 400', async () => {
  await seedInboundSms(h.core, {
    contact: { name: 'Quentin Marsh', phone: '+14155550191' },
    text: 'There is a wasp nest above the balcony',
    at: new Date(Date.now() - 40 * 86_400_000),
  });
  const res = await h.call('GET', '/api/search?q=wasp%20balcony', { token });
  expect(res.status).toBe(200);
  const body = searchResponse.parse(await res.json());
  expect(body.results[0]?.conversation.contact?.name).toBe('Quentin Marsh');
  expect(body.terms).toEqual(expect.arrayContaining(['wasp', 'balcony']));
  expect(body.results[0]?.matches[0]?.snippet).toContain('wasp nest');
  expect((await h.call('GET', '/api/search?q=', { token })).status).toBe(400);
});

test('done and archived through the API, audited, and back with the next inbound text; bad input is a 400', async () => {
  const c = plain('Closing Cleo', 5);
  await h.core.conversations.create(c);
  const post = (status: unknown, id = c.id) =>
    h.call('POST', `/api/conversations/${id}/status`, { token, body: { status } });
  expect((await post('done')).status).toBe(200);
  expect((await list()).conversations.map((x) => x.id)).not.toContain(c.id);
  expect((await list('?filter=done')).conversations.map((x) => x.id)).toContain(c.id);
  expect((await post('finished')).status).toBe(400);
  expect((await post('done', 'c_nope')).status).toBe(404);
  const audit = await h.core.audit.list(c.id);
  expect(audit.find((e) => e.type === 'conversation.status_changed')).toMatchObject({
    actor: MEMBER,
    data: { from: 'open', to: 'done' },
  });
  // The tenant writes again: the store's own forward move reopens it, no separate write.
  await h.core.conversations.appendMessage({
    id: newId('m_'),
    conversationId: c.id,
    role: 'inbound',
    text: 'One more thing',
    createdAt: at(0),
    author: { kind: 'contact', name: 'Closing Cleo' },
    channel: 'sms',
  });
  expect((await h.core.conversations.get(c.id))?.status).toBeUndefined();
  expect((await list()).conversations.map((x) => x.id)).toContain(c.id);
  expect((await post('archived')).status).toBe(200);
  expect((await post('open')).status).toBe(200);
  expect((await h.core.conversations.get(c.id))?.status).toBeUndefined();
});

test('export is one file for admins (the ops export), a 403 for members', async () => {
  const { conversation } = await seedInboundSms(h.core, {});
  const path = `/api/admin/conversations/${conversation.id}/export`;
  expect((await h.call('GET', path, { token })).status).toBe(403);
  const admin = await h.token(ADMIN, { name: 'Alex Rivera' });
  const res = await h.call('GET', path, { token: admin });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toContain(`conversation-${conversation.id}.json`);
  const file = conversationExport.parse(await res.json());
  expect(file.exportedBy).toBe(ADMIN);
  expect(file.messages.length).toBeGreaterThan(0);
  expect(file.cards.length).toBe(1);
  expect((await h.call('GET', '/api/admin/conversations/c_nope/export', { token: admin })).status).toBe(404);
});

import { afterAll, beforeAll, expect, test } from 'vitest';
import { listConversationsResponse } from '../../shared/src/contracts/api';
import type { Conversation } from '../../shared/src/contracts/conversations';
import { newId } from '../../shared/src/ids';
import { type ApiHarness, MEMBER, startApiHarness } from './harness';

/** Issue 19: urgent first ACROSS pages — an old open urgent matter is at the top of page one, and only there. */
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
const convo = (name: string, minutesAgo: number, extra: Partial<Conversation> = {}): Conversation => ({
  id: newId('c_'),
  title: name,
  source: 'sms',
  contact: { name },
  preview: `${name}: hello`,
  createdAt: at(minutesAgo),
  updatedAt: at(minutesAgo),
  lastMessageAt: at(minutesAgo),
  createdBy: 'system',
  pendingCount: 0,
  readBy: {},
  ...extra,
});

async function page(cursor?: string) {
  const q = `/api/conversations?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
  const res = await h.call('GET', q, { token });
  expect(res.status).toBe(200);
  return listConversationsResponse.parse(await res.json());
}

test('an urgent conversation older than the first page is at its top, and not repeated on later pages', async () => {
  const recent = Array.from({ length: 8 }, (_, i) => convo(`Recent ${i}`, 1 + i));
  const flood = convo('Old Flood', 600, { urgent: { at: at(600), reason: 'flooding', pagedAt: at(599) } });
  const handled = convo('Handled Fire', 700, { urgent: { at: at(700), reason: 'smoke' }, status: 'done' });
  for (const c of [...recent, flood, handled]) await h.core.conversations.create(c);

  const one = await page();
  const ids = one.conversations.map((c) => c.id);
  expect(ids[0]).toBe(flood.id);
  expect(ids.slice(1)).toEqual(recent.slice(0, 5).map((c) => c.id));
  expect(ids).not.toContain(handled.id);

  const seen = new Set(ids);
  for (let cursor = one.nextCursor; cursor; ) {
    const next = await page(cursor);
    for (const c of next.conversations) {
      expect(seen.has(c.id), `${c.title} shown twice`).toBe(false);
      seen.add(c.id);
    }
    cursor = next.nextCursor;
  }
  // Every open conversation once, the urgent one first; the done one stays out of the default view.
  expect([...seen].sort()).toEqual([flood, ...recent].map((c) => c.id).sort());
});

import { expect, test } from 'vitest';
import { liveActionStore } from '../adapters/live-publishing-stores';
import type { PendingAction } from '../contracts/conversations';
import type { LiveUpdate } from '../contracts/live';
import {
  InMemoryActionStore,
  InMemoryAuditLog,
  InMemoryConversationStore,
} from '../testing/in-memory-stores';
import { claimCard, releaseCard } from './claim-card';

const card: PendingAction = {
  id: 'act_1',
  conversationId: 'c_1',
  runId: 'run_1',
  tool: 'send_message',
  args: { to: '+14155550111', text: 'Hi' },
  argsHash: 'h',
  summary: 'Text Maria',
  status: 'PENDING',
  proposedBy: 'planner',
  reason: 'r',
  review: {},
  createdAt: '2026-11-24T09:00:00.000Z',
  updatedAt: '2026-11-24T09:00:00.000Z',
  version: 0,
};

test('a claim tells open apps the card changed — as an update, so no app announces it as a new card', async () => {
  const sent: LiveUpdate[] = [];
  // The live wrapper spreads its store (the DynamoDB stores are plain objects): give it the methods bound.
  const mem = new InMemoryActionStore();
  const plain = {
    create: mem.create.bind(mem),
    get: mem.get.bind(mem),
    listByConversation: mem.listByConversation.bind(mem),
    transition: mem.transition.bind(mem),
  };
  const actions = liveActionStore(plain, { publish: async (u) => void sent.push(u) });
  await actions.create(card);
  const conversations = new InMemoryConversationStore();
  const claimed = await claimCard(
    { actions, conversations, audit: new InMemoryAuditLog(), clock: () => new Date('2026-11-24T10:02:00Z') },
    {
      conversationId: 'c_1',
      actionId: 'act_1',
      user: { id: 'u_jo', email: 'jo@x.example', name: 'Jo Patel' },
    },
  );
  expect(claimed).toMatchObject({ status: 'PENDING', claim: { by: 'u_jo', name: 'Jo Patel' } });
  expect(sent).toEqual([
    { type: 'card.changed', conversationId: 'c_1', actionId: 'act_1', status: 'PENDING' },
    { type: 'card.changed', conversationId: 'c_1', actionId: 'act_1', status: 'PENDING', update: true },
  ]);
});

test('"Release": the claimer takes it back (card and conversation); anyone else is told who holds it', async () => {
  const actions = new InMemoryActionStore();
  const conversations = new InMemoryConversationStore();
  await conversations.create({
    id: 'c_1',
    title: 'Text from Maria',
    source: 'sms',
    preview: 'Maria: hi',
    createdAt: card.createdAt,
    updatedAt: card.createdAt,
    lastMessageAt: card.createdAt,
    createdBy: 'system',
    pendingCount: 1,
    readBy: {},
  });
  await actions.create(card);
  const audit = new InMemoryAuditLog();
  const deps = { actions, conversations, audit, clock: () => new Date('2026-11-24T10:05:00Z') };
  const jo = { id: 'u_jo', email: 'jo@x.example', name: 'Jo Patel' };
  const sam = { id: 'u_sam', email: 'sam@x.example', name: 'Sam Chen' };
  const ids = { conversationId: 'c_1', actionId: 'act_1' };
  await claimCard(deps, { ...ids, user: jo });
  expect((await conversations.get('c_1'))?.claimedBy).toBe('u_jo');

  await expect(releaseCard(deps, { ...ids, user: sam })).rejects.toMatchObject({
    status: 409,
    message: 'Jo Patel is on it; only they can release it',
  });
  const released = await releaseCard(deps, { ...ids, user: jo });
  expect(released.claim).toBeUndefined();
  expect(released.status).toBe('PENDING');
  expect((await conversations.get('c_1'))?.claimedBy).toBeUndefined();
  expect(audit.events.map((e) => e.type)).toEqual(['card.claimed', 'card.released']);
  // Releasing again is a no-op; a decided card cannot be claimed or released.
  expect((await releaseCard(deps, { ...ids, user: jo })).claim).toBeUndefined();
  await claimCard(deps, { ...ids, user: jo });
  await actions.transition('c_1', 'act_1', ['PENDING'], 'APPROVED');
  await expect(releaseCard(deps, { ...ids, user: jo })).rejects.toMatchObject({ status: 409 });
});

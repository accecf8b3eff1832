import { expect, test } from 'vitest';
import { liveActionStore } from '../adapters/live-publishing-stores';
import type { PendingAction } from '../contracts/conversations';
import type { LiveUpdate } from '../contracts/live';
import {
  InMemoryActionStore,
  InMemoryAuditLog,
  InMemoryConversationStore,
} from '../testing/in-memory-stores';
import { claimCard } from './claim-card';

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

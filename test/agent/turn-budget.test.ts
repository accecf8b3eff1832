import { afterAll, beforeAll, expect, test } from 'vitest';
import { lastToolResults, type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import type { Core } from '../../shared/src/composition/core';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import { newId } from '../../shared/src/ids';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { runEventGroup } from '../../shared/src/use-cases/run-event-group';
import { createWorld, MARIA, SAM, type Servers, smsEvent, startServers, type World } from './harness';

/**
 * Issue 14's budget, a floor every later change keeps: the plain chat turn (2 model calls, 1 read tool) and
 * the rules-mode triage turn (an inbound text drafted into a card) make at most 6 DynamoDB requests each,
 * counted by a middleware on the production composition's document client against DynamoDB Local.
 * `npm run bench agent` prints the same counts by command, with the turn's time.
 */
const BUDGET = 6;

/** "Who is Maria?" → search_contacts → the answer: two model calls and one read tool. */
function answer(req: MessagesRequest) {
  const [result] = lastToolResults(req);
  if (!result) return turn.toolUse('search_contacts', { query: 'Maria' });
  return turn.text('Maria Lopez, +14155550111.');
}

let servers: Servers;
beforeAll(async () => {
  servers = await startServers({ anthropic: true, anthropicReply: answer });
});
afterAll(async () => {
  await servers?.stop();
});

/** Counts the requests sent while `on` is set, by command, for the failure message. */
function counter(core: Core) {
  const c = { on: false, commands: [] as string[] };
  core.dynamo.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (c.on) c.commands.push(String(context.commandName).replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize', name: 'budgetCounter' },
  );
  return {
    async measure<T>(f: () => Promise<T>): Promise<{ out: T; commands: string[] }> {
      c.commands = [];
      c.on = true;
      try {
        return { out: await f(), commands: [...c.commands] };
      } finally {
        c.on = false;
      }
    },
  };
}

/** The API's part (storing the person's message) is not the worker's turn, so it is not counted. */
async function chatEvent(world: World): Promise<EventEnvelope> {
  const user = { id: SAM.id, email: SAM.email, name: 'Sam' };
  const text = 'Who is Maria and what is her number?';
  const { conversation, messageId } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    { text, user },
  );
  return {
    id: newId('ev_'),
    type: 'chat.message',
    correlationId: `conv:${conversation.id}`,
    key: `conv:${conversation.id}`,
    occurredAt: servers.clock().toISOString(),
    payload: { conversationId: conversation.id, messageId, text, user },
  };
}

test('the plain chat turn (2 model calls + 1 read tool) makes at most 6 DynamoDB requests', async () => {
  const world = await createWorld(servers, { claude: true });
  try {
    const count = counter(world.core);
    // The first turn of a container also reads the admins' instructions (then cached for 60 s).
    for (const label of ['first turn', 'warm turn']) {
      const event = await chatEvent(world);
      const { out, commands } = await count.measure(() => runEventGroup(world.deps, [event]));
      expect(out.outcome).toBe('responded');
      expect(commands.length, `${label}: ${commands.join(', ')}`).toBeLessThanOrEqual(BUDGET);
    }
  } finally {
    await world.stop();
  }
});

test('the rules-mode triage turn (inbound text → drafted card) makes at most 6 DynamoDB requests', async () => {
  const world = await createWorld(servers);
  try {
    const count = counter(world.core);
    // A new sender's conversation is created in the turn; the next text lands in the existing one.
    for (const label of ['new conversation', 'existing conversation']) {
      servers.clock.advance(10 * 60_000);
      const event = smsEvent(MARIA, 'The sink is leaking', servers.clock());
      const { out, commands } = await count.measure(() => runEventGroup(world.deps, [event]));
      expect(out.outcome).toMatch(/^awaiting approval/);
      expect(commands.length, `${label}: ${commands.join(', ')}`).toBeLessThanOrEqual(BUDGET);
      // Someone marked it done; the next text reopens it inside the same turn write (issue 19).
      const latest = await world.core.conversations.findByTriggerKey(`sms:${MARIA}`);
      if (label === 'new conversation' && latest)
        await world.core.conversations.setInboxFields(latest.id, { status: 'done' });
      else expect(latest?.status).toBeUndefined();
    }
  } finally {
    await world.stop();
  }
});

import { BatchWriteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { lastToolResults, type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import type { Core } from '../../shared/src/composition/core';
import type { PendingAction } from '../../shared/src/contracts/conversations';
import type { EventEnvelope } from '../../shared/src/contracts/events';
import { newId } from '../../shared/src/ids';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import { savePersonalPreferences } from '../../shared/src/use-cases/preferences';
import { runEventGroup } from '../../shared/src/use-cases/run-event-group';
import { createWorld, LEAD, MARIA, SAM, type Servers, smsEvent, startServers, type World } from './harness';

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
  const c = { on: false, commands: [] as string[], returned: 0 };
  core.dynamo.doc.middlewareStack.add(
    (next, context) => async (args) => {
      if (c.on) c.commands.push(String(context.commandName).replace(/Command$/, ''));
      const res = await next(args);
      if (c.on) c.returned += (res.output as { Items?: unknown[] }).Items?.length ?? 0;
      return res;
    },
    { step: 'initialize', name: 'budgetCounter' },
  );
  return {
    async measure<T>(f: () => Promise<T>): Promise<{ out: T; commands: string[]; returned: number }> {
      c.commands = [];
      c.returned = 0;
      c.on = true;
      try {
        return { out: await f(), commands: [...c.commands], returned: c.returned };
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

/**
 * A conversation that has run many turns: every item of its partition but the live ones (META, INTENT, the
 * waiting card and its run) is copied `turns` times under older keys, as closed history — finished runs and
 * their steps, superseded cards, messages, audit entries.
 */
async function ageConversation(core: Core, conversationId: string, turns: number) {
  const pk = `CONV#${conversationId}`;
  const { Items = [] } = await core.dynamo.doc.send(
    new QueryCommand({
      TableName: core.config.TABLE_NAME,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': pk },
    }),
  );
  const past = (i: number) =>
    `2020-01-01T00:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}.000Z`;
  const copies: Array<Record<string, unknown>> = [];
  for (let i = 0; i < turns; i++) {
    for (const item of Items) {
      const sk = String(item.sk);
      const kind = sk.split('#')[0];
      const run = `run_old${i}`;
      if (kind === 'RUN') copies.push({ ...item, sk: `RUN#${run}`, id: run, status: 'completed' });
      else if (kind === 'STEP')
        copies.push({ ...item, sk: `STEP#${run}#${sk.split('#').pop()}`, runId: run });
      else if (kind === 'ACTION')
        copies.push({
          ...item,
          sk: `ACTION#act_old${i}_1`,
          id: `act_old${i}_1`,
          runId: run,
          status: 'SUPERSEDED',
        });
      else if (kind === 'MSG' || kind === 'AUDIT')
        copies.push({
          ...item,
          sk: `${kind}#${past(i)}#old${i}_${sk.slice(-8)}`,
          createdAt: past(i),
          at: past(i),
        });
    }
  }
  for (let i = 0; i < copies.length; i += 25) {
    const RequestItems = {
      [core.config.TABLE_NAME]: copies.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })),
    };
    await core.dynamo.doc.send(new BatchWriteCommand({ RequestItems }));
  }
  return copies.length;
}

test('a long conversation (hundreds of closed turns) still costs at most 6 requests, reading only its live records', async () => {
  const world = await createWorld(servers);
  try {
    const count = counter(world.core);
    servers.clock.advance(10 * 60_000);
    await runEventGroup(world.deps, [smsEvent(MARIA, 'The sink is leaking', servers.clock())]);
    const conv = await world.conversationFor(`sms:${MARIA}`);
    if (!conv) throw new Error('no conversation');
    const copied = await ageConversation(world.core, conv.id, 300);
    expect(copied).toBeGreaterThan(2_000);
    servers.clock.advance(10 * 60_000);
    const event = smsEvent(MARIA, 'The sink is still leaking', servers.clock());
    const { out, commands, returned } = await count.measure(() => runEventGroup(world.deps, [event]));
    expect(out.outcome).toMatch(/^awaiting approval/);
    expect(commands.length, commands.join(', ')).toBeLessThanOrEqual(BUDGET);
    // What the turn read back: META, the waiting card and its run, the policy facts — not 300 turns of history.
    expect(returned).toBeLessThan(40);
    // Behaviour is the same: the first draft was withdrawn by the newer text, and one card waits.
    const cards = await world.actionsFor(`sms:${MARIA}`);
    const live = cards.filter((a) => !a.id.startsWith('act_old'));
    expect(live.map((a) => a.status).sort()).toEqual(['PENDING', 'SUPERSEDED']);
  } finally {
    await world.stop();
  }
});

/** The worker's `approval.decided` for a card a person approved (decide-approval enqueues the same). */
function approvalEvent(card: PendingAction): EventEnvelope {
  return {
    id: newId('ev_'),
    type: 'approval.decided',
    correlationId: `conv:${card.conversationId}`,
    key: `conv:${card.conversationId}`,
    occurredAt: servers.clock().toISOString(),
    payload: { conversationId: card.conversationId, actionId: card.id, runId: card.runId },
  };
}

test('the approval turn (an approved reply sent, the run answered) makes at most 6 DynamoDB requests', async () => {
  const world = await createWorld(servers);
  try {
    const count = counter(world.core);
    servers.clock.advance(10 * 60_000);
    await runEventGroup(world.deps, [smsEvent(MARIA, 'The sink is leaking', servers.clock())]);
    const [card] = (await world.actionsFor(`sms:${MARIA}`)).filter((a) => a.status === 'PENDING');
    if (!card) throw new Error('no card');
    await world.decide(card, 'approve');
    const { out, commands } = await count.measure(() => runEventGroup(world.deps, [approvalEvent(card)]));
    expect(out.outcome).toBe('responded');
    expect(commands.length, commands.join(', ')).toBeLessThanOrEqual(BUDGET);
    // The outcome is stored with the turn's commit, audited with it, and the reply went out once.
    const [sent] = await world.core.actions.listByConversation(card.conversationId);
    expect(sent?.status).toBe('EXECUTED');
    const audit = await world.core.audit.list(card.conversationId);
    expect(audit.filter((e) => e.type === 'action.executed')).toHaveLength(1);
    expect(world.sentTo(MARIA)).toHaveLength(1);
  } finally {
    await world.stop();
  }
});

test("a lead's texts (new lead; later, naming a property someone handles) make at most 6 DynamoDB requests each", async () => {
  const world = await createWorld(servers);
  try {
    const count = counter(world.core);
    servers.clock.advance(10 * 60_000);
    await savePersonalPreferences(
      { facts: world.core.facts, clock: servers.clock },
      { userId: SAM.id, name: 'Sam', patch: { properties: ['48 Elm Ave'] }, by: SAM.email },
    );
    // The first text of a new lead: the lead state and its audit entry join the run's commit. The
    // assignments read is the container's first (a cache miss) and still fits.
    const first = smsEvent(
      LEAD,
      'Hi! Is the 2 bedroom still available? I would love to see it',
      servers.clock(),
    );
    const a = await count.measure(() => runEventGroup(world.deps, [first]));
    expect(a.out.outcome).toMatch(/^awaiting approval/);
    expect(a.commands.length, `new lead: ${a.commands.join(', ')}`).toBeLessThanOrEqual(BUDGET);
    const conv = await world.conversationFor(`sms:${LEAD}`);
    expect(conv?.lead?.state).toBe('new');
    expect(conv?.assignee).toBeUndefined();
    // Within the minute (the assignments cached): a later text naming Sam's property makes it Sam's.
    servers.clock.advance(20_000);
    const later = smsEvent(LEAD, 'Also, is parking included at 48 Elm Ave?', servers.clock());
    const b = await count.measure(() => runEventGroup(world.deps, [later]));
    expect(b.out.outcome).toMatch(/^awaiting approval/);
    expect(b.commands.length, `later lead: ${b.commands.join(', ')}`).toBeLessThanOrEqual(BUDGET);
    const after = await world.core.conversations.get(conv?.id as string);
    expect(after?.assignee).toBe(SAM.id);
    expect(after?.lead?.state).toBe('new');
    const audit = await world.core.audit.list(conv?.id as string);
    expect(audit.filter((e) => e.type === 'lead.state')).toHaveLength(1);
  } finally {
    await world.stop();
  }
});

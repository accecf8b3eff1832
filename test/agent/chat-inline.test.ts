import { afterAll, beforeAll, expect, test } from 'vitest';
import { lastToolResults, type MessagesRequest, turn } from '../../scripts/emulators/anthropic';
import type { EventOf } from '../../shared/src/contracts/events';
import { ConflictError } from '../../shared/src/errors';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import type { ProcessEventDeps } from '../../shared/src/use-cases/process-event';
import { type ChatUpdate, runChatInline } from '../../shared/src/use-cases/run-chat-inline';
import { createWorld, MARIA, SAM, type Servers, startServers, type World } from './harness';

/**
 * Issue 19: a PWA chat turn run in the streaming function — the worker's use case, the model's text forwarded
 * as the fake Messages API streams it, what it wrote stored (never per delta), a card's pause resumed by the worker.
 */
const LONG = `Maria Lopez lives at 12 Oak St, unit 4. ${'Her lease renews in March and she pays on time. '.repeat(6)}`;
let answerText = 'Maria Lopez, +14155550111.';

function model(req: MessagesRequest) {
  const text = JSON.stringify(req.messages[0]);
  const [result] = lastToolResults(req);
  if (text.includes('Text Maria')) {
    return result
      ? turn.text('I drafted the text for your approval.')
      : turn.toolUse('send_message', { to: MARIA, text: 'The plumber comes at 3.' });
  }
  if (!result) return turn.toolUse('search_contacts', { query: 'Maria' }, { text: 'Let me look her up.' });
  return turn.text(answerText);
}

let servers: Servers;
let world: World;
beforeAll(async () => {
  servers = await startServers({ anthropic: true, anthropicReply: model });
  world = await createWorld(servers, { claude: true });
});
afterAll(async () => {
  await world?.stop();
  await servers?.stop();
});

const deps = (): ProcessEventDeps => ({ ...world.core, ...world.deps, cooldownSeconds: 0 });

async function chat(text: string, conversationId?: string) {
  const user = { id: SAM.id, email: SAM.email, name: 'Sam' };
  const { event } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    { text, user, ...(conversationId ? { conversationId } : {}), queueDelaySeconds: 180 },
  );
  return event;
}

async function collect(event: EventOf<'chat.message'>, d = deps()) {
  const out: ChatUpdate[] = [];
  for await (const u of runChatInline(d, event)) out.push(u);
  return out;
}

/** DynamoDB requests sent while `f` runs, counted on the composition's document client. */
async function requests<T>(f: () => Promise<T>): Promise<{ out: T; n: number }> {
  let n = 0;
  const name = `count-${Math.random()}`;
  world.core.dynamo.doc.middlewareStack.add(
    (next) => async (args) => {
      n++;
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    return { out: await f(), n };
  } finally {
    world.core.dynamo.doc.middlewareStack.remove(name);
  }
}

test('the answer streams as the model writes it; what it wrote before a tool call and the answer are stored', async () => {
  // The first turn of a container also reads the admins' instructions (cached 60 s): warm it up first.
  await collect(await chat('Who is Maria?'));
  servers.anthropic?.setLatency(5);
  const event = await chat('Who is Maria?');
  answerText = LONG;
  const { out: updates, n: long } = await requests(() => collect(event));
  const deltas = updates.filter((u) => u.type === 'delta');
  const stored = updates.find(
    (u) => u.type === 'message' && u.message.role === 'assistant' && u.message.text === LONG.trim(),
  );
  // Text arrived in many pieces, each before the stored message, which says exactly what was streamed.
  expect(deltas.length).toBeGreaterThan(10);
  expect(updates.indexOf(deltas[0]!)).toBeLessThan(updates.indexOf(stored!));
  const answerId = deltas.at(-1)!.id;
  const streamed = deltas
    .filter((d) => d.id === answerId)
    .map((d) => d.text)
    .join('');
  expect(stored?.type === 'message' && stored.message.text).toBe(streamed.trim());
  expect(updates.at(-1)).toMatchObject({ type: 'progress', status: 'completed' });
  // The text written before the tool call streamed as its own block and is kept too (a reload shows what
  // the person read), before the tool's activity and the answer.
  const noteBlock = deltas.filter((d) => d.id === deltas[0]?.id).map((d) => d.text);
  expect(noteBlock.join('')).toBe('Let me look her up.');
  const messages = await world.core.conversations.listMessages(event.payload.conversationId);
  const after = messages.filter((m) => m.runId === `run_${event.id}`);
  expect(after.map((m) => [m.role, m.role === 'tool' ? m.tool?.name : m.text])).toEqual([
    ['assistant', 'Let me look her up.'],
    ['tool', 'search_contacts'],
    ['assistant', LONG.trim()],
  ]);
  // No write per delta: a one-line answer costs the same requests as one streamed in 15+ pieces.
  answerText = 'Maria Lopez, +14155550111.';
  const second = await chat('Who is Maria?');
  const { n: short } = await requests(() => collect(second));
  expect(long).toBe(short);
  // The turn's own budget (issue 14: ≤ 6) plus the event ledger's read and write, as in the worker.
  expect(long).toBeLessThanOrEqual(6 + 2);
  // The queued copy is only a backstop: when the worker gets it, the ledger says it is done.
  const ledger = await world.core.ledger.get(event.id);
  expect(ledger?.status).toBe('processed');
  servers.anthropic?.setLatency(0);
});

test('a turn that proposes a write pauses on its card; the decision resumes it through the queue', async () => {
  const event = await chat('Text Maria that the plumber comes at 3');
  const updates = await collect(event);
  const card = updates.find((u) => u.type === 'action');
  expect(card?.type === 'action' && card.action.status).toBe('PENDING');
  expect(updates.at(-1)).toMatchObject({ type: 'progress', status: 'awaiting_approval' });
  if (card?.type !== 'action') throw new Error('no card');
  await world.decide(card.action, 'approve');
  await world.work();
  const run = await world.core.runs.get(event.payload.conversationId, card.action.runId);
  expect(run?.status).toBe('completed');
  expect(world.sentTo(MARIA).map((m) => m.text)).toEqual(['The plumber comes at 3.']);
});

test('a turn that fails here is handed to the worker at once, and the PWA is told to keep following', async () => {
  const event = await chat('Who is Maria?');
  const d = deps();
  const broken: ProcessEventDeps = {
    ...d,
    turns: {
      ...(d.turns as NonNullable<ProcessEventDeps['turns']>),
      conversationIdFor: (k) => d.turns!.conversationIdFor(k),
      load: (c, r) => d.turns!.load(c, r),
      recentMessages: (c, n) => d.turns!.recentMessages(c, n),
      commit: async () => {
        throw new ConflictError('another worker committed first');
      },
    },
  };
  const updates = await collect(event, broken);
  expect(updates.at(-1)).toMatchObject({ type: 'progress', status: 'timeout' });
  // Handed over now, not after the backstop's delay: the worker's next receive has it.
  expect((await world.work()).map((e) => e.id)).toContain(event.id);
  const messages = await world.core.conversations.listMessages(event.payload.conversationId);
  expect(messages.at(-1)?.text).toBe(answerText);
});

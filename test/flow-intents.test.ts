import { afterAll, beforeAll, expect, test } from 'vitest';
import { type LocalStack, startLocalStack } from '../scripts/local/stack';
import { getCore } from '../shared/src/composition/core';
import type { Message, PendingAction } from '../shared/src/contracts/conversations';
import { postChatMessage } from '../shared/src/use-cases/post-chat-message';

/**
 * Issue 8's "done when": with no key (rules mode), each chat intent works end to end against the
 * emulators — drafts become approval cards, reads answer in chat.
 */
let stack: LocalStack;
beforeAll(async () => {
  stack = await startLocalStack({ port: 0, schedules: false });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const user = { id: 'u_alex', email: 'alex@oakproperties.example', name: 'Alex Rivera' };

async function ask(text: string): Promise<{ reply?: Message; card?: PendingAction }> {
  const core = await getCore('test-intents');
  const { conversation } = await postChatMessage(core, { text, user });
  const deadline = Date.now() + 40_000;
  while (Date.now() < deadline) {
    const [messages, actions] = await Promise.all([
      core.conversations.listMessages(conversation.id),
      core.actions.listByConversation(conversation.id),
    ]);
    const card = actions.find((a) => a.status === 'PENDING');
    const reply = messages.find((m) => m.role === 'assistant');
    if (card || reply) return { ...(card ? { card } : {}), ...(reply ? { reply } : {}) };
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer to "${text}"`);
}

test('"text Maria that the plumber comes at 3" → search_contacts → a send_message card', async () => {
  const { card } = await ask('text Maria that the plumber comes at 3');
  expect(card?.tool).toBe('send_message');
  expect(card?.args).toMatchObject({
    to: '+14155550111',
    text: expect.stringMatching(/^Hi Maria, the plumber comes at 3/),
  });
}, 60_000);

test('"what\'s on the calendar tomorrow?" reads the calendar and answers in chat', async () => {
  const { reply, card } = await ask("what's on the calendar tomorrow?");
  expect(card).toBeUndefined();
  expect(reply?.text).toMatch(/calendar for|Nothing on the calendar/);
}, 60_000);

test('"create a task to fix the heater at 12 Oak St" → a create_task card', async () => {
  const { card } = await ask('create a task to fix the heater at 12 Oak St');
  expect(card?.tool).toBe('create_task');
  expect(card?.args).toMatchObject({ name: 'fix the heater at 12 Oak St' });
}, 60_000);

test('a repair passed on ("the dryer in the laundry room at 12 Oak St is broken") → a create_task card in those words', async () => {
  const { card } = await ask('the dryer in the laundry room at 12 Oak St is broken');
  expect(card?.tool).toBe('create_task');
  expect(card?.args).toMatchObject({ name: 'The dryer in the laundry room at 12 Oak St is broken' });
}, 60_000);

test('"email Bob about the leak: …" → a send_email card to his address', async () => {
  const { card } = await ask(
    'email Bob Martinez about the leak at 12 Oak St: can you come tomorrow morning?',
  );
  expect(card?.tool).toBe('send_email');
  expect(card?.args).toMatchObject({ to: 'bob@martinezplumbing.example', subject: 'the leak at 12 Oak St' });
}, 60_000);

test('"schedule a showing …" → a create_calendar_event card in the team timezone', async () => {
  const { card } = await ask('schedule a showing at 48 Elm Ave on friday at 4pm');
  expect(card?.tool).toBe('create_calendar_event');
  expect(String(card?.args.start)).toMatch(/T16:00:00[-+]\d\d:\d\d$/);
}, 60_000);

test('"who is Lena?" looks the contact up', async () => {
  const { reply } = await ask('who is Lena?');
  expect(reply?.text).toMatch(/Lena Fischer/);
}, 60_000);

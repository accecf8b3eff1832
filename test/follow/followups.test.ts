import { afterAll, beforeAll, expect, test } from 'vitest';
import { postChatMessage } from '../../shared/src/use-cases/post-chat-message';
import {
  BOB,
  createWorld,
  MARIA,
  SAM,
  type Servers,
  smsEvent,
  startServers,
  type World,
} from '../agent/harness';

/**
 * "Text Maria tomorrow at 9 if the plumber hasn't confirmed", said in chat (rules mode): a card binding the
 * text, the time and the condition; approving it sets a timer on the Scheduler emulator; with the emulator's
 * clock moved past the time, the text goes out only if Bob (the plumber) has not replied meanwhile —
 * otherwise it is cancelled with a note.
 */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

const DAY = 24 * 3600 * 1000;

async function askForFollowUp(world: World) {
  const { conversation } = await postChatMessage(
    { ...world.core, clock: servers.clock },
    {
      text: "text Maria tomorrow at 9 if the plumber hasn't confirmed",
      user: { id: SAM.id, email: SAM.email, name: 'Sam Chen' },
    },
  );
  await world.work();
  const [card] = await world.core.actions.listByConversation(conversation.id);
  if (!card) throw new Error('no card');
  return { conversationId: conversation.id, card };
}

async function advance(world: World, ms: number) {
  servers.clock.advance(ms);
  const fired = await world.scheduler?.advance(ms);
  await world.work();
  return fired;
}

test('approved, and nobody replied: at 9 the bound text is sent to Maria', async () => {
  const world = await createWorld(servers, { timers: true });
  try {
    const { conversationId, card } = await askForFollowUp(world);
    expect(card).toMatchObject({
      tool: 'schedule_followup',
      status: 'PENDING',
      args: {
        kind: 'text',
        to: MARIA,
        toName: 'Maria Lopez',
        at: expect.stringMatching(/T09:00:00-05:00$/),
        condition: { kind: 'no_reply', from: BOB, name: 'Bob Martinez' },
      },
    });
    const text = card.args.text as string;
    expect(text).toContain('Bob Martinez');

    await world.decide(card, 'approve');
    await world.work();
    const [f] = await world.core.followups.listByConversation(conversationId);
    expect(f).toMatchObject({ status: 'scheduled', to: MARIA, text, actionId: card.id });
    expect(world.scheduler?.schedules().filter((s) => s.name.startsWith('followup-'))).toHaveLength(1);

    expect(world.sentTo(MARIA)).toEqual([]);
    expect(await advance(world, 2 * DAY)).toBeGreaterThanOrEqual(1);
    expect(world.sentTo(MARIA).map((m) => m.text)).toEqual([text]);
    expect((await world.core.followups.get(conversationId, f?.id as string))?.status).toBe('sent');
    const said = await world.core.conversations.listMessages(conversationId);
    expect(said.at(-1)?.text).toMatch(/^Scheduled follow-up done: texted Maria Lopez/);
  } finally {
    await world.stop();
  }
}, 60_000);

test('the plumber replied before 9: nothing is sent, and the conversation says why', async () => {
  const world = await createWorld(servers, { timers: true });
  try {
    const { conversationId, card } = await askForFollowUp(world);
    await world.decide(card, 'approve');
    await world.work();
    servers.clock.advance(3600_000);
    await world.deliver(smsEvent(BOB, 'Confirmed, I will be there at 10 tomorrow', servers.clock()));
    await advance(world, 2 * DAY);
    expect(world.sentTo(MARIA)).toEqual([]);
    const [f] = await world.core.followups.listByConversation(conversationId);
    expect(f).toMatchObject({
      status: 'cancelled',
      note: expect.stringMatching(/^Not sent: Bob Martinez replied at/),
    });
    const said = await world.core.conversations.listMessages(conversationId);
    expect(said.at(-1)?.text).toMatch(
      /not sent \(only if Bob Martinez has not replied since .*\): Bob Martinez replied at/,
    );
  } finally {
    await world.stop();
  }
}, 60_000);

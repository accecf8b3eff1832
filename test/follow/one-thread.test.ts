import { afterAll, beforeAll, expect, test } from 'vitest';
import { createWorld, emailEvent, MARIA, type Servers, smsEvent, startServers } from '../agent/harness';

/**
 * One thread per person: Maria's text and her email (a known contact: the address book has both) land in
 * one conversation, each message marked with its channel, each draft answering on the channel it answers;
 * after the window a new conversation starts.
 */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

const MARIA_EMAIL = 'Maria Lopez <maria.lopez@mail.example>';

test("a tenant's text and email share one conversation, each marked with its channel", async () => {
  const world = await createWorld(servers);
  try {
    await world.deliver(smsEvent(MARIA, 'The kitchen sink is leaking again', servers.clock()));
    servers.clock.advance(3600_000);
    await world.deliver(
      emailEvent(
        {
          from: MARIA_EMAIL,
          subject: 'Sink leak photos',
          text: 'Hi, the sink under the kitchen is leaking again. Can someone come today?',
        },
        servers.clock(),
      ),
    );
    const all = await world.core.conversations.list();
    expect(all).toHaveLength(1);
    const conv = all[0];
    expect(conv?.channels).toEqual(['sms', 'email']);
    const inbound = (await world.core.conversations.listMessages(conv?.id as string)).filter(
      (m) => m.role === 'inbound',
    );
    expect(inbound.map((m) => m.channel)).toEqual(['sms', 'email']);
    // The text's draft answers by text; the email's run is an email triage (no Google in this world, so it
    // reports instead of drafting an email) — each run's trigger is the message it answers.
    const cards = await world.core.actions.listByConversation(conv?.id as string);
    expect(cards.map((c) => [c.tool, c.args.to])).toEqual([['send_message', MARIA]]);
    const runs = new Set(cards.map((c) => c.runId));
    expect(runs.size).toBe(1);
    // The old channel key still finds it (cards' outgoing copies look it up by `sms:<phone>`).
    expect((await world.conversationFor(`sms:${MARIA}`))?.id).toBe(conv?.id);
  } finally {
    await world.stop();
  }
}, 60_000);

test('after the window (THREAD_WINDOW_DAYS) the same person starts a new conversation', async () => {
  const world = await createWorld(servers, { env: { THREAD_WINDOW_DAYS: '2' } });
  try {
    await world.deliver(smsEvent(MARIA, 'The kitchen sink is leaking again', servers.clock()));
    servers.clock.advance(3 * 24 * 3600_000);
    await world.deliver(smsEvent(MARIA, 'The heating is not working', servers.clock()));
    expect(await world.core.conversations.list()).toHaveLength(2);
  } finally {
    await world.stop();
  }
}, 60_000);

import { afterAll, beforeAll, expect, test } from 'vitest';
import { setLeadState } from '../../shared/src/use-cases/set-lead-state';
import { createWorld, emailEvent, type Servers, startServers } from '../agent/harness';

/** Lead state per lead: set when a lead writes, and a booked lead's next email gets no drafted reply. */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

const lead = (text: string, threadId = 'th_lead_1') =>
  emailEvent(
    {
      from: 'Jordan Reyes <jordan.reyes@mail.example>',
      subject: 'Apartment at 48 Elm Ave',
      text,
      source: 'leads',
      threadId,
    },
    servers.clock(),
  );

test('a new lead is "new"; once a showing is booked, their next email is not answered', async () => {
  const world = await createWorld(servers);
  try {
    await world.deliver(lead('Hi, is the 2 bedroom at 48 Elm Ave still available? I would love to see it.'));
    const conv = await world.conversationFor('email:th_lead_1');
    expect(conv?.lead?.state).toBe('new');
    const before = (await world.core.actions.listByConversation(conv?.id as string)).length;

    await setLeadState(
      { ...world.core, clock: servers.clock },
      { conversationId: conv?.id as string, state: 'showing_booked', by: 'sam' },
    );
    servers.clock.advance(3600_000);
    await world.deliver(lead('Great, see you Thursday! Do I need to bring anything?'));
    const after = await world.core.conversations.get(conv?.id as string);
    expect(after?.lead?.state).toBe('showing_booked');
    expect((await world.core.actions.listByConversation(conv?.id as string)).length).toBe(before);
    expect(
      world.log.entries.some((e) => String(e.fields?.reason ?? '').includes('showing booked: no reply')),
    ).toBe(true);
  } finally {
    await world.stop();
  }
}, 60_000);

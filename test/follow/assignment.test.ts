import { afterAll, beforeAll, expect, test } from 'vitest';
import { savePersonalPreferences } from '../../shared/src/use-cases/preferences';
import { createWorld, emailEvent, MARIA, SAM, type Servers, smsEvent, startServers } from '../agent/harness';

/**
 * Property assignment → conversation.assignee (issue 20): Sam says in his preferences that he handles 48 Elm
 * Ave; a lead email about it becomes his conversation (the inbox's "Mine"); a text that names no property
 * stays unassigned until a later message names it; a conversation with an assignee keeps it.
 */
let servers: Servers;
beforeAll(async () => {
  servers = await startServers();
}, 60_000);
afterAll(async () => {
  await servers?.stop();
});

test('a message about a property someone handles makes the conversation theirs', async () => {
  const world = await createWorld(servers);
  try {
    await savePersonalPreferences(
      { ...world.core, clock: servers.clock },
      { userId: SAM.id, name: 'Sam Chen', patch: { properties: ['48 Elm Ave'] }, by: SAM.email },
    );
    await world.deliver(
      emailEvent(
        {
          from: 'Jordan Reyes <jordan.reyes@mail.example>',
          subject: 'Apartment at 48 Elm Ave.',
          text: 'Hi, is the 2 bedroom still available? I would love to see it.',
          source: 'leads',
          threadId: 'th_assign_1',
        },
        servers.clock(),
      ),
    );
    expect((await world.conversationFor('email:th_assign_1'))?.assignee).toBe(SAM.id);

    await world.deliver(smsEvent(MARIA, 'The hallway light is out again', servers.clock()));
    expect((await world.conversationFor(`sms:${MARIA}`))?.assignee).toBeUndefined();
    // The property becomes known later in an unassigned conversation: it becomes Sam's then.
    const maria = (await world.conversationFor(`sms:${MARIA}`))?.id as string;
    servers.clock.advance(3 * 60_000);
    await world.deliver(smsEvent(MARIA, 'Also the door at 48 Elm Ave sticks', servers.clock()));
    expect((await world.core.conversations.get(maria))?.assignee).toBe(SAM.id);
    // A conversation someone already has keeps its assignee when a text names another's property.
    await world.core.conversations.setThreadFields(maria, { assignee: 'u_alex' });
    servers.clock.advance(3 * 60_000);
    await world.deliver(smsEvent(MARIA, 'And the mailbox at 48 Elm Ave is broken', servers.clock()));
    expect((await world.core.conversations.get(maria))?.assignee).toBe('u_alex');
  } finally {
    await world.stop();
  }
}, 60_000);

test('a property named without a number ("Maple Court") assigns an existing conversation, and only the hint spends a read', async () => {
  const world = await createWorld(servers);
  try {
    await savePersonalPreferences(
      { ...world.core, clock: servers.clock },
      { userId: 'u_alex', name: 'Alex Kim', patch: { properties: ['Maple Court'] }, by: 'alex@example.com' },
    );
    const reads: string[] = [];
    world.core.dynamo.doc.middlewareStack.add(
      (next) => async (args) => {
        const values = (args.input as { ExpressionAttributeValues?: Record<string, unknown> })
          .ExpressionAttributeValues;
        if (values?.[':pk'] === 'FACTS#team-preferences') reads.push('assignments');
        return next(args);
      },
      { step: 'initialize', name: 'assignmentReads' },
    );
    // The new conversation reads the assignments (and the container keeps their names as a hint).
    await world.deliver(smsEvent(MARIA, 'Hi, I have a question about my lease renewal', servers.clock()));
    const maria = (await world.conversationFor(`sms:${MARIA}`))?.id as string;
    expect((await world.core.conversations.get(maria))?.assignee).toBeUndefined();
    expect(reads).toHaveLength(1);
    // Ten minutes on (the 60 s cache is stale): a text that names no property spends no read...
    servers.clock.advance(10 * 60_000);
    await world.deliver(smsEvent(MARIA, 'When does it end?', servers.clock()));
    expect(reads).toHaveLength(1);
    // ...and one that names Maple Court (no house number) spends the fresh read and becomes Alex's.
    servers.clock.advance(10 * 60_000);
    await world.deliver(smsEvent(MARIA, 'Also the heater at maple court is broken again', servers.clock()));
    expect(reads).toHaveLength(2);
    expect((await world.core.conversations.get(maria))?.assignee).toBe('u_alex');
  } finally {
    await world.stop();
  }
}, 60_000);

import { QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from 'vitest';
import { dynamoConversationEraser } from '../../shared/src/adapters/dynamo/conversation-eraser';
import { deleteConversation } from '../../shared/src/use-cases/delete-conversation';
import { createWorld, MARIA, type Servers, smsEvent, startServers, type World } from './harness';

/**
 * Issue 19's delete racing a running turn: the worker has read the conversation and is still working (a slow
 * model, a slow tool) when an admin deletes it. Whatever the turn then writes must not bring the conversation
 * back — not its records in the old partition, not a fresh conversation made from the same text — and the
 * event still ends in the ledger, stripped to its id.
 */
let servers: Servers;
let world: World;
beforeAll(async () => {
  servers = await startServers();
});
afterAll(async () => {
  await servers?.stop();
});
beforeEach(async () => {
  world = await createWorld(servers);
});
afterEach(async () => {
  await world?.stop();
});

const admin = () => ({ ...world.core, eraser: dynamoConversationEraser(world.core.table) });

/**
 * The admin deletes the conversation once, at a chosen point of its next turn: after the turn read its
 * partition (before it writes anything), or after the turn wrote everything (before the ledger records the event).
 */
function deleteDuringTheTurn(conversationId: string, at: 'after-read' | 'before-ledger') {
  const turns = world.deps.turns;
  if (!turns) throw new Error('the worker composes a turn store');
  let done = false;
  const deleteOnce = async (id: string) => {
    if (id !== conversationId || done) return;
    done = true;
    await deleteConversation(admin(), { conversationId, confirm: conversationId, deletedBy: 'alex@oak' });
  };
  if (at === 'after-read') {
    const load = turns.load.bind(turns);
    turns.load = async (id, runId) => {
      const snapshot = await load(id, runId);
      await deleteOnce(id);
      return snapshot;
    };
  } else {
    // The turn has committed everything; the worker is about to record how the event ended.
    const ledger = world.core.ledger;
    const record = ledger.record.bind(ledger);
    ledger.record = async (entry) => {
      if (entry.status === 'processed') await deleteOnce(conversationId);
      return record(entry);
    };
  }
  return () => done;
}

/** As SQS does: a delivery whose processing throws comes back, up to the queue's three receives. */
async function deliverWithRedelivery(event: Parameters<World['deliver']>[0]) {
  const errors: unknown[] = [];
  for (let receive = 1; receive <= 3; receive++) {
    try {
      await world.deliver(event);
      return errors;
    } catch (e) {
      errors.push(e);
    }
  }
  return errors;
}

async function itemsMentioning(text: string) {
  const res = await world.core.dynamo.doc.send(new ScanCommand({ TableName: world.core.table.tableName }));
  return (res.Items ?? []).filter((i) => JSON.stringify(i).includes(text));
}

test.each(['after-read', 'before-ledger'] as const)(
  'a text whose turn is running when the conversation is deleted (%s) leaves nothing behind and starts nothing new',
  async (when) => {
    await world.deliver(smsEvent(MARIA, 'Hi, the kitchen sink is leaking slowly', servers.clock()));
    const first = await world.conversationFor(`sms:${MARIA}`);
    expect(first).toBeDefined();
    const id = first?.id as string;
    const deleted = deleteDuringTheTurn(id, when);

    const later = smsEvent(MARIA, 'Also the hallway light flickers at night', servers.clock());
    const errors = await deliverWithRedelivery(later);
    expect(deleted()).toBe(true);

    // The conversation stays gone: no META, no records in its partition, no new conversation for Maria.
    expect(await world.core.conversations.get(id)).toBeUndefined();
    const partition = await world.core.dynamo.doc.send(
      new QueryCommand({
        TableName: world.core.table.tableName,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': `CONV#${id}` },
      }),
    );
    expect(partition.Items ?? []).toEqual([]);
    expect(await world.conversationFor(`sms:${MARIA}`)).toBeUndefined();
    expect((await world.core.conversations.list()).map((c) => c.id)).toEqual([]);
    expect(await itemsMentioning('hallway light')).toEqual([]);
    // The event ended (not retried into a new conversation), and its ledger line keeps its id only.
    expect(await world.core.ledger.get(later.id)).toMatchObject({ eventId: later.id, key: 'erased' });
    expect(await itemsMentioning(MARIA.slice(1))).toEqual([]);
    expect(errors.map(String)).toEqual([]);
  },
);

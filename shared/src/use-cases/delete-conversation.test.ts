import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, test } from 'vitest';
import { freshTable } from '../../../test/helpers';
import { dynamoActionStore } from '../adapters/dynamo/action-store';
import { dynamoAuditLog } from '../adapters/dynamo/audit-log';
import type { DynamoTable } from '../adapters/dynamo/base';
import { dynamoConversationEraser } from '../adapters/dynamo/conversation-eraser';
import { dynamoConversationStore } from '../adapters/dynamo/conversation-store';
import { dynamoEventLedger } from '../adapters/dynamo/event-ledger';
import { DynamoFactStore } from '../adapters/dynamo/fact-store';
import { dynamoFollowUpStore } from '../adapters/dynamo/followup-store';
import { dynamoMediaStore } from '../adapters/dynamo/media-store';
import { dynamoRunStore } from '../adapters/dynamo/run-store';
import { teamNotifyTimerName } from '../agent/card-timers';
import type { Conversation, PendingAction } from '../contracts/conversations';
import { deletionTombstone } from '../contracts/deletion';
import type { LiveUpdate } from '../contracts/live';
import { leadCheckTimerName } from '../domain/lead-check';
import { NotFoundError, ValidationError } from '../errors';
import type { Timers } from '../ports/timers';
import { followUpTimerName } from '../tools/followups';
import {
  type DeleteConversationDeps,
  deleteConversation,
  planOf,
  previewDeletion,
} from './delete-conversation';

const NOW = new Date('2026-11-23T15:00:00Z');
const at = (min: number) => new Date(NOW.getTime() - (60 - min) * 60_000).toISOString();
let table: DynamoTable;
let deps: DeleteConversationDeps;
const published: LiveUpdate[] = [];
const forgotten: string[] = [];

beforeAll(async () => {
  const t = await freshTable('delete');
  table = { doc: t.doc, tableName: t.tableName };
  deps = {
    conversations: dynamoConversationStore(table),
    actions: dynamoActionStore(table),
    runs: dynamoRunStore(table),
    audit: dynamoAuditLog(table, () => NOW),
    facts: new DynamoFactStore(table),
    eraser: dynamoConversationEraser(table),
    clock: () => NOW,
    live: { publish: async (u) => void published.push(u) },
    search: { forget: (id) => void forgotten.push(id) },
  };
});

const conversationOf = (id: string, phone: string): Conversation => ({
  id,
  title: 'Maria Lopez',
  source: 'sms',
  contact: { name: 'Maria Lopez', phone, id: `ct_${id}` },
  preview: 'The sink is leaking',
  createdAt: at(0),
  updatedAt: at(0),
  lastMessageAt: at(0),
  createdBy: 'system',
  triggerKey: `sms:${phone}`,
  pendingCount: 0,
  readBy: {},
});

const card = (conversationId: string, id: string, status: PendingAction['status']): PendingAction => ({
  id,
  conversationId,
  runId: 'r1',
  tool: 'send_message',
  args: { to: '+14155550111', text: 'Hi Maria, a plumber comes tomorrow.' },
  argsHash: 'h',
  summary: 'Text Maria',
  status,
  proposedBy: 'planner',
  reason: 'reply',
  review: {},
  createdAt: at(4),
  updatedAt: at(4),
  version: 1,
});

const put = (Item: Record<string, unknown>) =>
  table.doc.send(new PutCommand({ TableName: table.tableName, Item }));

/** A conversation holding one of everything delete must take: the records the worker and follow write. */
async function seedFull(id: string, phone: string) {
  const d = deps;
  await d.conversations.create(conversationOf(id, phone));
  await d.conversations.mapTriggerKey(`person:ct_${id}`, id);
  const msg = (mid: string, min: number, extra: Record<string, unknown>) =>
    d.conversations.appendMessage({
      id: mid,
      conversationId: id,
      role: 'inbound',
      text: 'The sink is leaking',
      createdAt: at(min),
      author: { kind: 'contact', name: 'Maria Lopez' },
      ...extra,
    } as never);
  await msg(`${id}_m1`, 1, { media: [{ id: `md_${id}`, type: 'image/jpeg' }] });
  await msg(`${id}_m2`, 2, { role: 'system', call: { callId: `call_${id}` } });
  await msg(`${id}_m3`, 3, { role: 'assistant', runId: 'r1', research: { taskId: `rt_${id}` } });
  await dynamoMediaStore(table).put({
    id: `md_${id}`,
    url: 'https://media.example/x.jpg',
    type: 'image/jpeg',
    conversationId: id,
    messageId: `${id}_m1`,
    createdAt: at(1),
  });
  await put({ pk: `CALL#call_${id}`, sk: 'CALL', callId: `call_${id}` });
  await put({ pk: `RESEARCH#rt_${id}`, sk: 'TASK', taskId: `rt_${id}` });
  await put({ pk: `RESEARCH#rt_${id}`, sk: 'NODE#n1', taskId: `rt_${id}` });
  await d.runs.create({
    id: 'r1',
    conversationId: id,
    status: 'awaiting_approval',
    mode: 'rules',
    trigger: { type: 'sms.received', key: `sms:${phone}`, eventIds: ['e1'] },
    iteration: 1,
    nextSeq: 0,
    usage: {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      costUsd: 0,
      modelCalls: 0,
    },
    createdAt: at(2),
    updatedAt: at(3),
  });
  await d.runs.appendStep(id, { runId: 'r1', seq: 0, kind: 'input', at: at(2), data: {} });
  await d.runs.appendStep(id, { runId: 'r1', seq: 1, kind: 'tool_result', at: at(3), data: { name: 'x' } });
  await d.actions.create(card(id, `${id}_a1`, 'PENDING'));
  await d.audit.append({ conversationId: id, type: 'approval.requested', actor: 'system', at: at(4) });
  await d.facts.put(id, [
    {
      predicate: 'contact',
      args: [phone, `ct_${id}`, 'false'],
      establishedAt: Math.floor(NOW.getTime() / 1000) - 60,
      provenance: { kind: 'tool', detail: 'search_contacts' },
    },
  ]);
}

/**
 * The ledger as the webhook and the worker leave it for a person: a processed text (its run in the
 * conversation), a reaction that started nothing, a chat turn under `conv:<id>` — and, under the same phone
 * number, a text another conversation's run took.
 */
async function seedLedger(id: string, phone: string, otherConversationRun: string) {
  const ledger = dynamoEventLedger(table);
  const entry = (
    eventId: string,
    key: string,
    status: 'received' | 'processed' | 'ignored',
    min: number,
  ) => ({
    eventId,
    type: 'sms.received',
    key,
    status,
    reason: status === 'ignored' ? 'reaction (a tapback)' : 'replied',
    at: at(min),
    correlationId: `openphone:${eventId}`,
  });
  await ledger.record(entry('e1', `sms:${phone}`, 'received', 1));
  await ledger.record({ ...entry('e1', `sms:${phone}`, 'processed', 2), runId: 'r1' });
  await ledger.record(entry(`${id}_tapback`, `sms:${phone}`, 'ignored', 3));
  await ledger.record({ ...entry(`${id}_chat`, `conv:${id}`, 'processed', 4), type: 'chat.message' });
  await ledger.record({
    ...entry(`${id}_other`, `sms:${phone}`, 'processed', 5),
    runId: otherConversationRun,
  });
}

async function partition(pk: string) {
  const res = await table.doc.send(
    new QueryCommand({
      TableName: table.tableName,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': pk },
    }),
  );
  return res.Items ?? [];
}

/** The scheduler as a record of what was set and cancelled (our own port; the emulator has its own tests). */
function recordingTimers(): Timers & { cancelled: string[] } {
  const cancelled: string[] = [];
  return { cancelled, scheduleAt: async () => undefined, cancel: async (name) => void cancelled.push(name) };
}

describe('deleteConversation (DynamoDB Local)', () => {
  test('erases everything the conversation holds, leaves a tombstone without personal data, and nothing else', async () => {
    await seedFull('c_gone', '+14155550111');
    await seedFull('c_kept', '+14155550122');
    await seedLedger('c_gone', '+14155550111', 'r_of_c_kept');
    // The same person's newer conversation took over the `sms:` mapping: it must survive.
    await deps.conversations.mapTriggerKey('sms:+14155550111', 'c_kept');
    const preview = await previewDeletion(deps, 'c_gone');
    expect(preview).toMatchObject({
      conversationId: 'c_gone',
      counts: { messages: 3, cards: 1, runs: 1, audit: 1, facts: 1, media: 1 },
      pendingCards: 1,
    });

    const tombstone = await deleteConversation(deps, {
      conversationId: 'c_gone',
      confirm: 'c_gone',
      deletedBy: 'alex@oak.example',
    });
    expect(tombstone).toMatchObject({
      conversationId: 'c_gone',
      source: 'sms',
      deletedBy: 'alex@oak.example',
      deletedAt: NOW.toISOString(),
      state: 'deleted',
      erased: {
        conversation: 1,
        messages: 3,
        cards: 1,
        runs: 1,
        steps: 2,
        audit: 1,
        facts: 1,
        media: 1,
        calls: 1,
        research: 2,
        triggers: 1,
        ledger: 3,
      },
    });
    // The ledger keeps the events' ids, statuses and times; the number, the reasons and the key index go.
    for (const eventId of ['e1', 'c_gone_tapback', 'c_gone_chat']) {
      const rows = await partition(`EVENT#${eventId}`);
      expect(rows.length, eventId).toBeGreaterThan(0);
      for (const row of rows) {
        expect(row, eventId).toMatchObject({ eventId, key: 'erased' });
        expect(JSON.stringify(row), eventId).not.toMatch(/4155550111|tapback\)|replied|openphone:/);
      }
    }
    expect(await dynamoEventLedger(table).get('e1')).toMatchObject({ status: 'processed', runId: 'r1' });
    // Another conversation's event under the same number is that conversation's to keep.
    expect(await dynamoEventLedger(table).get('c_gone_other')).toMatchObject({ key: 'sms:+14155550111' });
    // Nothing of the person stays: no plan with their keys, no title, no number.
    expect(tombstone.pending).toBeUndefined();
    const stored = JSON.stringify(await deps.eraser.getTombstone('c_gone'));
    expect(stored).not.toMatch(/Maria|4155550111|sink/);
    for (const pk of [
      'CONV#c_gone',
      'FACTS#c_gone',
      'MEDIA#md_c_gone',
      'CALL#call_c_gone',
      'RESEARCH#rt_c_gone',
    ])
      expect(await partition(pk), pk).toEqual([]);
    expect(await partition('TRIGGER#person:ct_c_gone')).toEqual([]);
    expect((await partition('TRIGGER#sms:+14155550111'))[0]?.conversationId).toBe('c_kept');
    // The other conversation is whole, and the team's list no longer has the deleted one.
    expect((await deps.conversations.listMessages('c_kept')).length).toBe(3);
    expect((await deps.conversations.list()).map((c) => c.id)).toEqual(['c_kept']);
    expect(published).toContainEqual({ type: 'conversation.changed', conversationId: 'c_gone' });
    expect(forgotten).toEqual(['c_gone']);
    expect((await deps.eraser.listTombstones({ limit: 10 })).map((t) => t.conversationId)).toEqual([
      'c_gone',
    ]);
    // Deleting again answers the same tombstone (a retried request), and erases nothing more.
    expect(
      await deleteConversation(deps, {
        conversationId: 'c_gone',
        confirm: 'c_gone',
        deletedBy: 'sam@oak.example',
      }),
    ).toEqual(tombstone);
  });

  test('a deletion that stopped after its tombstone is finished from the tombstone alone', async () => {
    await seedFull('c_half', '+14155550133');
    const messages = await deps.conversations.listMessages('c_half');
    const convo = (await deps.conversations.get('c_half')) as Conversation;
    // As `begin` leaves it, then a crash after META went: the messages no longer name the media.
    await deps.eraser.putTombstone({
      conversationId: 'c_half',
      source: 'sms',
      conversationCreatedAt: convo.createdAt,
      deletedBy: 'alex@oak.example',
      deletedAt: NOW.toISOString(),
      state: 'deleting',
      pending: planOf(convo, messages, ['c_half_a1']),
    });
    await deps.eraser.erase('c_half', {
      triggerKeys: [],
      mediaIds: [],
      callIds: [],
      researchTaskIds: [],
      actionIds: [],
      eventIds: [],
      timerNames: [],
    });
    expect(await deps.conversations.get('c_half')).toBeUndefined();
    expect(await partition('MEDIA#md_c_half')).toHaveLength(1);
    const done = await deleteConversation(deps, {
      conversationId: 'c_half',
      confirm: 'c_half',
      deletedBy: 'alex@oak.example',
    });
    expect(deletionTombstone.parse(done)).toMatchObject({ state: 'deleted', deletedBy: 'alex@oak.example' });
    expect(done.pending).toBeUndefined();
    for (const pk of [
      'MEDIA#md_c_half',
      'CALL#call_c_half',
      'RESEARCH#rt_c_half',
      'TRIGGER#sms:+14155550133',
    ])
      expect(await partition(pk), pk).toEqual([]);
  });

  test('bad input: an unconfirmed or mistyped confirmation deletes nothing; an unknown id is a 404', async () => {
    await seedFull('c_safe', '+14155550144');
    for (const confirm of ['', 'c_other', 'C_SAFE'])
      await expect(
        deleteConversation(deps, { conversationId: 'c_safe', confirm, deletedBy: 'a@b' }),
      ).rejects.toBeInstanceOf(ValidationError);
    expect(await deps.conversations.get('c_safe')).toBeDefined();
    expect(await deps.eraser.getTombstone('c_safe')).toBeUndefined();
    await expect(
      deleteConversation(deps, { conversationId: 'c_nope', confirm: 'c_nope', deletedBy: 'a@b' }),
    ).rejects.toBeInstanceOf(NotFoundError);
    await expect(previewDeletion(deps, 'c_nope')).rejects.toBeInstanceOf(NotFoundError);
  });
  test("cancels every schedule the conversation has: waiting cards', scheduled follow-ups' and the lead check", async () => {
    await seedFull('c_timed', '+14155550155');
    await deps.conversations.setThreadFields('c_timed', {
      lead: { state: 'invited', updatedAt: at(5) },
    } as never);
    const followups = dynamoFollowUpStore(table);
    const followUp = (id: string, status: 'scheduled' | 'sent') =>
      followups.create({
        id,
        conversationId: 'c_timed',
        actionId: 'c_timed_a1',
        kind: 'text',
        to: '+14155550155',
        text: 'Hi Maria, is Thursday still good?',
        at: new Date(NOW.getTime() + 3600_000).toISOString(),
        status,
        createdAt: at(5),
        updatedAt: at(5),
      });
    await followUp('fu_later', 'scheduled');
    await followUp('fu_done', 'sent');
    const timers = recordingTimers();
    await deleteConversation(
      { ...deps, followups, cardTimers: { timers } },
      { conversationId: 'c_timed', confirm: 'c_timed', deletedBy: 'alex@oak.example' },
    );
    expect(timers.cancelled).toEqual(
      expect.arrayContaining([
        teamNotifyTimerName('c_timed_a1'),
        followUpTimerName('c_timed', 'fu_later'),
        leadCheckTimerName('c_timed', at(5)),
      ]),
    );
    expect(timers.cancelled).not.toContain(followUpTimerName('c_timed', 'fu_done'));
    expect(await followups.listByConversation('c_timed')).toEqual([]);
  });
});

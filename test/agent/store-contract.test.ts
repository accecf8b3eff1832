import { afterAll, describe, expect, test } from 'vitest';
import { dynamoActionStore } from '../../shared/src/adapters/dynamo/action-store';
import { dynamoAuditLog } from '../../shared/src/adapters/dynamo/audit-log';
import { dynamoConversationStore } from '../../shared/src/adapters/dynamo/conversation-store';
import { dynamoIntentStore } from '../../shared/src/adapters/dynamo/intent-store';
import { dynamoRunStore } from '../../shared/src/adapters/dynamo/run-store';
import type { Conversation, Message, PendingAction } from '../../shared/src/contracts/conversations';
import type { Run } from '../../shared/src/contracts/runs';
import { ConflictError } from '../../shared/src/errors';
import { newId } from '../../shared/src/ids';
import type { ActionStore } from '../../shared/src/ports/action-store';
import type { AuditLog } from '../../shared/src/ports/audit-log';
import type { ConversationStore } from '../../shared/src/ports/conversation-store';
import type { IntentStore } from '../../shared/src/ports/intent-store';
import type { RunStore } from '../../shared/src/ports/run-store';
import { inMemoryStores } from '../../shared/src/testing/in-memory-stores';
import { freshTable } from '../helpers';

/**
 * The in-memory stores used by unit tests must behave like the DynamoDB adapters where the runtime relies on
 * it (conditional creates and transitions, idempotent step and message writes, expiry on read, ordering).
 * The same checks run against both, the adapters on DynamoDB Local.
 */
interface Stores {
  conversations: ConversationStore;
  actions: ActionStore;
  runs: RunStore;
  intents: IntentStore;
  audit: AuditLog;
}

const cleanups: Array<() => void> = [];
afterAll(() => {
  for (const c of cleanups) c();
});

const implementations: Array<[string, () => Promise<Stores>]> = [
  ['in-memory', async () => inMemoryStores()],
  [
    'DynamoDB adapters',
    async () => {
      const table = await freshTable('contract');
      cleanups.push(() => table.raw.destroy());
      const t = { doc: table.doc, tableName: table.tableName };
      return {
        conversations: dynamoConversationStore(t),
        actions: dynamoActionStore(t),
        runs: dynamoRunStore(t),
        intents: dynamoIntentStore(t),
        audit: dynamoAuditLog(t),
      };
    },
  ],
];

const at = (s: number) => new Date(Date.UTC(2026, 0, 5, 12, 0, s)).toISOString();

const conversation = (id: string, over: Partial<Conversation> = {}): Conversation => ({
  id,
  title: 'Maria Lopez',
  source: 'sms',
  preview: 'hello',
  createdAt: at(0),
  updatedAt: at(0),
  lastMessageAt: at(0),
  createdBy: 'system',
  pendingCount: 0,
  readBy: {},
  ...over,
});

const message = (conversationId: string, id: string, s: number, over: Partial<Message> = {}): Message => ({
  id,
  conversationId,
  role: 'assistant',
  text: `message ${id}`,
  createdAt: at(s),
  author: { kind: 'assistant', name: 'Switchboard' },
  ...over,
});

const action = (conversationId: string, id: string): PendingAction => ({
  id,
  conversationId,
  runId: 'run_1',
  tool: 'send_message',
  args: { to: '+14155550111', text: 'Hi' },
  argsHash: 'h',
  summary: 'Text Maria',
  status: 'PENDING',
  proposedBy: 'planner',
  reason: 'ack',
  review: {},
  createdAt: at(0),
  updatedAt: at(0),
  version: 0,
});

const run = (conversationId: string, id: string, over: Partial<Run> = {}): Run => ({
  id,
  conversationId,
  status: 'running',
  mode: 'rules',
  trigger: { type: 'sms.received', key: 'sms:+1', eventIds: ['e1'] },
  iteration: 0,
  nextSeq: 0,
  usage: {
    inputTokens: 0,
    outputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    costUsd: 0,
    modelCalls: 0,
  },
  createdAt: at(0),
  updatedAt: at(0),
  ...over,
});

describe.each(implementations)('%s', (_name, make) => {
  test('actions: a create is conditional, a transition moves once from an allowed status', async () => {
    const s = await make();
    const c = newId('c_');
    await s.actions.create(action(c, 'a1'));
    await expect(s.actions.create(action(c, 'a1'))).rejects.toBeInstanceOf(ConflictError);
    expect(await s.actions.transition(c, 'a1', ['APPROVED'], 'EXECUTING')).toBeUndefined();
    expect(await s.actions.transition(c, 'missing', ['PENDING'], 'APPROVED')).toBeUndefined();

    // Two people at once: exactly one transition out of PENDING wins.
    const [approve, deny] = await Promise.all([
      s.actions.transition(c, 'a1', ['PENDING'], 'APPROVED', { decidedBy: 'sam' }),
      s.actions.transition(c, 'a1', ['PENDING'], 'DENIED', { decidedBy: 'alex' }),
    ]);
    expect([approve, deny].filter(Boolean)).toHaveLength(1);
    const won = (approve ?? deny)!;
    expect(won.version).toBe(1);

    // The patch cannot change the identity, the status or the version; undefined fields are not written.
    const next = await s.actions.transition(c, 'a1', [won.status], 'EXECUTING', {
      id: 'other',
      status: 'EXECUTED',
      version: 99,
      error: undefined,
      executingSince: at(5),
    } as Partial<PendingAction>);
    expect(next).toMatchObject({ id: 'a1', status: 'EXECUTING', version: 2, executingSince: at(5) });
    expect(next && 'error' in next).toBe(false);
    expect(await s.actions.get(c, 'a1')).toEqual(next);

    // A null field is removed (a released claim), in the same conditional write.
    const claim = { by: 'u_jo', name: 'Jo Patel', at: at(6) };
    await s.actions.transition(c, 'a1', ['EXECUTING'], 'EXECUTING', { claim });
    const released = await s.actions.transition(c, 'a1', ['EXECUTING'], 'EXECUTING', { claim: null });
    expect(released && 'claim' in released).toBe(false);
    expect(await s.actions.get(c, 'a1')).toEqual(released);

    // What a caller reads is a copy.
    const read = (await s.actions.get(c, 'a1'))!;
    read.args.text = 'changed';
    expect((await s.actions.get(c, 'a1'))?.args.text).toBe('Hi');
    await s.actions.create(action(c, 'a0'));
    expect((await s.actions.listByConversation(c)).map((a) => a.id)).toEqual(['a0', 'a1']);
  });

  test('runs: steps are written once per sequence number and listed in order; findActive', async () => {
    const s = await make();
    const c = newId('c_');
    await s.runs.create(run(c, 'r1'));
    await s.runs.create(run(c, 'r1', { status: 'completed' }));
    expect((await s.runs.get(c, 'r1'))?.status).toBe('running');
    for (const seq of [10, 2, 0]) {
      expect(await s.runs.appendStep(c, { runId: 'r1', seq, kind: 'plan', at: at(seq), data: { seq } })).toBe(
        true,
      );
    }
    expect(
      await s.runs.appendStep(c, { runId: 'r1', seq: 2, kind: 'response', at: at(3), data: 'other' }),
    ).toBe(false);
    expect((await s.runs.listSteps(c, 'r1')).map((x) => [x.seq, x.kind, x.data])).toEqual([
      [0, 'plan', { seq: 0 }],
      [2, 'plan', { seq: 2 }],
      [10, 'plan', { seq: 10 }],
    ]);
    expect(await s.runs.listSteps(c, 'r10')).toEqual([]);

    await s.runs.update(c, 'r1', { status: 'awaiting_approval', awaitingActionId: 'a1', outcome: undefined });
    await s.runs.create(run(c, 'r2', { createdAt: at(9), status: 'completed' }));
    expect((await s.runs.findActive(c))?.id).toBe('r1');
    await s.runs.create(run(c, 'r3', { createdAt: at(10), status: 'awaiting_approval' }));
    expect((await s.runs.findActive(c))?.id).toBe('r3');
    await s.runs.update(c, 'r3', { status: 'completed', awaitingActionId: undefined });
    expect((await s.runs.get(c, 'r3'))?.awaitingActionId).toBeUndefined();
    expect((await s.runs.findActive(c))?.id).toBe('r1');
    await expect(s.runs.update(c, 'nope', { status: 'completed' })).rejects.toBeDefined();
  });

  test('intents: expire on read, are replaced by a put, and cleared', async () => {
    const s = await make();
    const c = newId('c_');
    const base = { conversationId: c, intent: 'send_text', slots: { recipient: 'Maria' }, missing: ['text'] };
    await s.intents.put({ ...base, createdAt: at(0), expiresAt: at(30) });
    expect(await s.intents.get(c, new Date(at(29)))).toMatchObject({ slots: { recipient: 'Maria' } });
    expect(await s.intents.get(c, new Date(at(30)))).toBeUndefined();
    await s.intents.put({ ...base, slots: { recipient: 'Bob' }, createdAt: at(31), expiresAt: at(59) });
    expect((await s.intents.get(c, new Date(at(40))))?.slots).toEqual({ recipient: 'Bob' });
    await s.intents.clear(c);
    expect(await s.intents.get(c, new Date(at(40)))).toBeUndefined();
  });

  test('conversations: conditional create, idempotent messages, preview only forward, pending never below 0', async () => {
    const s = await make();
    const c = newId('c_');
    const key = `sms:${newId('+1')}`;
    await s.conversations.create(conversation(c, { triggerKey: key }));
    await expect(s.conversations.create(conversation(c))).rejects.toBeInstanceOf(ConflictError);
    expect((await s.conversations.findByTriggerKey(key))?.id).toBe(c);
    expect(await s.conversations.findByTriggerKey('sms:none')).toBeUndefined();

    const tenant = { role: 'inbound' as const, author: { kind: 'contact' as const, name: 'Maria' } };
    await s.conversations.appendMessage(message(c, 'm2', 2, { text: 'second', ...tenant }));
    await s.conversations.appendMessage(message(c, 'm2', 2, { text: 'second', ...tenant }));
    await s.conversations.appendMessage(message(c, 'm1', 1, { text: 'first, late', ...tenant }));
    await s.conversations.appendMessage(message(c, 'm3', 3, { role: 'tool', text: 'a tool line' }));
    expect((await s.conversations.listMessages(c)).map((m) => m.text)).toEqual([
      'first, late',
      'second',
      'a tool line',
    ]);
    expect((await s.conversations.listMessages(c, { limit: 2 })).map((m) => m.id)).toEqual(['m2', 'm3']);
    const conv = await s.conversations.get(c);
    // The preview is people's words (issue 19): who wrote and what; it never moves backwards.
    expect(conv).toMatchObject({ preview: 'Maria: second', lastMessageAt: at(2) });
    await s.conversations.appendMessage(message(c, 'm4', 4, { text: 'I drafted a reply.' }));
    expect(await s.conversations.get(c)).toMatchObject({ preview: 'Maria: second', lastMessageAt: at(4) });

    await s.conversations.adjustPending(c, 1);
    await s.conversations.adjustPending(c, -1);
    await s.conversations.adjustPending(c, -1);
    expect((await s.conversations.get(c))?.pendingCount).toBe(0);
    // Thread fields: absent ones stay, null removes (a released claim).
    await s.conversations.setThreadFields(c, { claimedBy: 'u_jo', assignee: 'u_sam' });
    await s.conversations.setThreadFields(c, { claimedBy: null });
    const fields = await s.conversations.get(c);
    expect(fields).toMatchObject({ assignee: 'u_sam' });
    expect(fields && 'claimedBy' in fields).toBe(false);
    await s.conversations.adjustPending('missing', 1);
    expect(await s.conversations.get('missing')).toBeUndefined();
  });

  test('audit: append-only, listed in time order', async () => {
    const s = await make();
    const c = newId('c_');
    await s.audit.append({ conversationId: c, type: 'b', actor: 'x', at: at(2) });
    await s.audit.append({ conversationId: c, type: 'a', actor: 'x', at: at(1) });
    await s.audit.append({ conversationId: c, type: 'c', actor: 'x', at: at(3), data: { n: 1 } });
    const list = await s.audit.list(c);
    expect(list.map((e) => e.type)).toEqual(['a', 'b', 'c']);
    expect(new Set(list.map((e) => e.id)).size).toBe(3);
    expect((await s.audit.list(c, { limit: 1 }))[0]).toMatchObject({ type: 'c', data: { n: 1 } });
  });
});

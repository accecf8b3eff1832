import {
  GetCommand,
  QueryCommand,
  type QueryCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
} from '@aws-sdk/lib-dynamodb';
import type {
  AuditEvent,
  Conversation,
  InboxFields,
  Message,
  PendingAction,
  PendingIntent,
  ThreadFields,
} from '../../contracts/conversations';
import type { Run, RunStep } from '../../contracts/runs';
import { peoplePreview } from '../../domain/preview';
import { ConversationDeletedError, RetryableConflictError } from '../../errors';
import type { TurnSnapshot, TurnStore, TurnWrite } from '../../ports/turn-store';
import { actionTransitionUpdate } from './action-update';
import { type DynamoTable, epochSeconds, stripKeys } from './base';
import { inboxParts, updateOf } from './conversation-store';
import { factPk, factSk } from './fact-keys';
import { tombstoneKey } from './tombstone-key';

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** DynamoDB's limit of items in one TransactWriteItems call, less the deletion guard each one carries. */
const MAX_TRANSACT_ITEMS = 99;
const stepSk = (r: string, seq: number) => `STEP#${r}#${String(seq).padStart(6, '0')}`;

/**
 * The turn's partition read and its one-transaction commit, on the single table's conversation partition
 * (`CONV#<id>`: META, RUN#, STEP#, MSG#, ACTION#, INTENT, AUDIT#) — the same items the per-record stores
 * write, so every other reader is unchanged.
 */
export function dynamoTurnStore(t: DynamoTable): TurnStore {
  return {
    async conversationIdFor(triggerKey) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: { pk: `TRIGGER#${triggerKey}`, sk: 'TRIGGER' } }),
      );
      return res.Item?.conversationId as string | undefined;
    },
    load: (conversationId, runId) => loadTurn(t, conversationId, runId),
    recentMessages: (conversationId, limit) => recentMessages(t, conversationId, limit),
    async commit(conversationId, writes) {
      if (writes.length === 0) return;
      const plan = foldWrites(t.tableName, conversationId, writes);
      await commitPlan(t, plan, conversationId);
    },
  };
}

/** Closed cards: nothing a later turn does depends on them (a retry of a failed card is the API's). */
const CLOSED_CARDS = ['DENIED', 'EXECUTED', 'EXPIRED', 'SUPERSEDED'] as const;
const ACTIVE_RUNS = ['running', 'awaiting_approval'] as const;

/**
 * The turn's read, bounded by what a turn can act on rather than by the conversation's age, as queries of the
 * partition run together (strongly consistent, as the run and card reads were). Sort keys are grouped by kind
 * (`ACTION#` < `AUDIT#` < `INTENT` < `META` < `MSG#` < `RUN#` < `STEP#`), so each query names only the ranges it
 * needs: messages (the largest part, read on demand by `recentMessages`), other runs' steps and anything after
 * them are never read at all. Within the two ranges read, the audit trail, closed cards of earlier runs and
 * finished runs are filtered out server-side: they still count against the 1 MB a query page reads, which a
 * conversation reaches after roughly a thousand cards (one more request per MB).
 */
async function loadTurn(t: DynamoTable, conversationId: string, runId?: string): Promise<TurnSnapshot> {
  const pk = `CONV#${conversationId}`;
  const run = runId ?? '';
  const [state, runs] = await Promise.all([
    queryPartition(t, {
      KeyConditionExpression: 'pk = :p AND sk BETWEEN :from AND :to',
      // Keys cannot be filtered on: audit entries are the items with an `actor`, cards the ones with a `tool`.
      FilterExpression: `attribute_not_exists(#actor) AND (attribute_not_exists(#tool) OR #run = :run OR NOT (#status IN (${CLOSED_CARDS.map((_, i) => `:c${i}`).join(', ')})))`,
      ExpressionAttributeNames: { '#actor': 'actor', '#tool': 'tool', '#run': 'runId', '#status': 'status' },
      ExpressionAttributeValues: {
        ':p': pk,
        ':from': 'ACTION#',
        ':to': 'META',
        ':run': run,
        ...Object.fromEntries(CLOSED_CARDS.map((c, i) => [`:c${i}`, c])),
      },
    }),
    queryPartition(t, {
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :r)',
      FilterExpression: '#id = :run OR #status IN (:a0, :a1)',
      ExpressionAttributeNames: { '#id': 'id', '#status': 'status' },
      ExpressionAttributeValues: {
        ':p': pk,
        ':r': 'RUN#',
        ':run': run,
        ':a0': ACTIVE_RUNS[0],
        ':a1': ACTIVE_RUNS[1],
      },
    }),
  ]);
  // The driven run's steps only when the run exists (a resumed or redelivered turn): a new run has none yet.
  const steps = runs.some((i) => i.id === runId)
    ? await queryPartition(t, {
        KeyConditionExpression: 'pk = :p AND begins_with(sk, :s)',
        ExpressionAttributeValues: { ':p': pk, ':s': `STEP#${runId}#` },
      })
    : [];
  return snapshotOf([...state, ...runs, ...steps]);
}

/** Every page of one query of the partition (a filtered page may come back short or empty; keep going). */
async function queryPartition(
  t: DynamoTable,
  input: Omit<QueryCommandInput, 'TableName' | 'ConsistentRead' | 'ExclusiveStartKey'>,
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await t.doc.send(
      new QueryCommand({ ...input, TableName: t.tableName, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...(res.Items ?? []));
    start = res.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The newest `limit` messages (one page read backwards from the newest), oldest first. */
async function recentMessages(t: DynamoTable, conversationId: string, limit: number): Promise<Message[]> {
  const res = await t.doc.send(
    new QueryCommand({
      TableName: t.tableName,
      KeyConditionExpression: 'pk = :p AND begins_with(sk, :m)',
      ExpressionAttributeValues: { ':p': `CONV#${conversationId}`, ':m': 'MSG#' },
      ScanIndexForward: false,
      Limit: limit,
      ConsistentRead: true,
    }),
  );
  return (res.Items ?? []).reverse().map((i) => stripKeys<Message>(i) as Message);
}

function snapshotOf(items: Array<Record<string, unknown>>): TurnSnapshot {
  const snap: TurnSnapshot = { runs: [], steps: [], actions: [] };
  for (const raw of items) {
    const sk = raw.sk as string;
    const item = stripKeys<Record<string, unknown>>(raw) as Record<string, unknown>;
    if (sk === 'META') snap.conversation = item as unknown as Conversation;
    else if (sk === 'INTENT') snap.intent = item.intent as PendingIntent;
    else if (sk.startsWith('RUN#')) snap.runs.push(item as unknown as Run);
    else if (sk.startsWith('STEP#')) snap.steps.push(item as unknown as RunStep);
    else if (sk.startsWith('ACTION#')) snap.actions.push(item as unknown as PendingAction);
  }
  return snap;
}

interface CommitPlan {
  items: TransactItem[];
  /** Index of the conversation touch (preview/lastMessageAt) update, whose lost condition is not a conflict. */
  touchAt?: number;
  /** The same update without the touch (only the pending count), or nothing, for the retry. */
  withoutTouch?: TransactItem;
}

/** Folds the turn's writes into one operation per item (a transaction may name an item only once). */
function foldWrites(tableName: string, conversationId: string, writes: TurnWrite[]): CommitPlan {
  const pk = `CONV#${conversationId}`;
  const put = (Item: Record<string, unknown>, ConditionExpression?: string): TransactItem => ({
    Put: { TableName: tableName, Item, ...(ConditionExpression ? { ConditionExpression } : {}) },
  });
  const items: TransactItem[] = [];
  const runs = new Map<string, { create?: Run; patch: Partial<Run> }>();
  const bySk = new Map<string, TransactItem>();
  let created: Conversation | undefined;
  let touch: Message | undefined;
  let pending = 0;
  let inbox: InboxFields = {};
  let thread: ThreadFields = {};
  let intent: TransactItem | undefined;
  for (const w of writes) {
    if (w.kind === 'run.create') runs.set(w.run.id, { create: w.run, patch: {} });
    else if (w.kind === 'run.update') {
      const r = runs.get(w.runId) ?? { patch: {} };
      r.patch = { ...r.patch, ...definedOnly(w.patch) };
      runs.set(w.runId, r);
    } else if (w.kind === 'step')
      items.push(put({ pk, sk: stepSk(w.step.runId, w.step.seq), ...w.step }, 'attribute_not_exists(sk)'));
    else if (w.kind === 'conversation.create') created = w.conversation;
    else if (w.kind === 'message') {
      const sk = `MSG#${w.message.createdAt}#${w.message.id}`;
      bySk.set(sk, put({ pk, sk, ...w.message }));
      if (w.touch && (!touch || touch.createdAt <= w.message.createdAt)) touch = w.message;
      // New words from outside reopen a done or archived conversation (issue 19), in this same write, even
      // when a note the turn wrote first (a withdrawn draft) already moved the conversation past its time.
      if (w.message.role === 'inbound') inbox = { ...inbox, status: 'open' };
    } else if (w.kind === 'pending') pending += w.delta;
    else if (w.kind === 'inbox') inbox = { ...inbox, ...w.patch };
    else if (w.kind === 'thread') thread = { ...thread, ...definedOnly(w.patch) };
    else if (w.kind === 'trigger')
      bySk.set(`TRIGGER#${w.key}`, put({ pk: `TRIGGER#${w.key}`, sk: 'TRIGGER', conversationId }));
    else if (w.kind === 'audit') bySk.set(`AUDIT#${w.event.at}#${w.event.id}`, auditPut(w.event));
    else if (w.kind === 'action.create')
      items.push(put({ pk, sk: `ACTION#${w.action.id}`, ...w.action }, 'attribute_not_exists(sk)'));
    else if (w.kind === 'action.transition') items.push(actionTransition(tableName, pk, w));
    else if (w.kind === 'facts.put')
      for (const f of w.facts) {
        // Typed by the policy engine that made them (the fact store's own put validates direct writes).
        const sk = factSk(f.predicate, f.args);
        bySk.set(`FACT#${sk}`, put({ pk: factPk(conversationId), sk, ...f }));
      }
    else if (w.kind === 'fact.delete') {
      const Key = { pk: factPk(conversationId), sk: factSk(w.predicate, w.args) };
      bySk.set(`FACT#${Key.sk}`, { Delete: { TableName: tableName, Key } });
    } else if (w.kind === 'intent.put')
      intent = put({
        pk,
        sk: 'INTENT',
        intent: w.intent,
        expiresAt: epochSeconds(new Date(w.intent.expiresAt)),
      });
    else intent = { Delete: { TableName: tableName, Key: { pk, sk: 'INTENT' } } };
  }
  for (const [runId, r] of runs) items.push(runItem(tableName, pk, runId, r));
  items.push(...bySk.values());
  if (intent) items.push(intent);
  function auditPut(e: AuditEvent) {
    return put({ pk, sk: `AUDIT#${e.at}#${e.id}`, ...e });
  }
  if (created) {
    const meta = createdMeta(pk, { ...withInbox(created, inbox), ...thread }, touch, pending);
    items.push(put(meta, 'attribute_not_exists(pk)'));
    if (created.triggerKey && !bySk.has(`TRIGGER#${created.triggerKey}`))
      items.push(put({ pk: `TRIGGER#${created.triggerKey}`, sk: 'TRIGGER', conversationId: created.id }));
    return { items };
  }
  const marked = Object.keys(inbox).length > 0 || Object.keys(thread).length > 0;
  if (!touch && pending === 0 && !marked) return { items };
  items.push(metaUpdate(tableName, pk, { touch, pending, inbox, thread }));
  return {
    items,
    touchAt: touch ? items.length - 1 : undefined,
    ...(touch && (pending || marked)
      ? { withoutTouch: metaUpdate(tableName, pk, { pending, inbox, thread }) }
      : {}),
  };
}

/** The action store's conditional transition (status one of `from`), as one item of the turn's transaction. */
function actionTransition(
  tableName: string,
  pk: string,
  w: Extract<TurnWrite, { kind: 'action.transition' }>,
): TransactItem {
  return {
    Update: {
      TableName: tableName,
      Key: { pk, sk: `ACTION#${w.actionId}` },
      ...actionTransitionUpdate(w.from, w.to, w.patch),
    },
  };
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

function runItem(tableName: string, pk: string, runId: string, r: { create?: Run; patch: Partial<Run> }) {
  const sk = `RUN#${runId}`;
  if (r.create) {
    return {
      Put: {
        TableName: tableName,
        Item: { pk, sk, ...r.create, ...r.patch },
        ConditionExpression: 'attribute_not_exists(sk)',
      },
    } satisfies TransactItem;
  }
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  for (const [k, v] of Object.entries(r.patch)) {
    if (k === 'id' || k === 'conversationId') continue;
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  return {
    Update: {
      TableName: tableName,
      Key: { pk, sk },
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: 'attribute_exists(sk)',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  } satisfies TransactItem;
}

/** The inbox's fields staged in the turn, on the conversation the turn creates ('open' is no status). */
function withInbox(c: Conversation, inbox: InboxFields): Conversation {
  const { status, ...rest } = { ...c, ...inbox };
  return status && status !== 'open' ? { ...rest, status } : rest;
}

/** A conversation created in this turn carries its messages' preview and its cards' count from the start. */
function createdMeta(pk: string, c: Conversation, touch: Message | undefined, pending: number) {
  const moved = touch && c.lastMessageAt <= touch.createdAt;
  const meta = {
    ...c,
    pendingCount: c.pendingCount + pending,
    ...(moved
      ? {
          preview: peoplePreview(touch) ?? c.preview,
          lastMessageAt: touch.createdAt,
          updatedAt: touch.createdAt,
        }
      : {}),
  };
  return { pk, sk: 'META', gsi1pk: 'CONVS', gsi1sk: `${meta.lastMessageAt}#${c.id}`, ...meta };
}

/** The same update the conversation store makes per message (never moving backwards), plus the card count. */
function metaUpdate(
  tableName: string,
  pk: string,
  m: { touch?: Message | undefined; pending: number; inbox: InboxFields; thread: ThreadFields },
): TransactItem {
  const { touch, pending } = m;
  const parts = inboxParts(m.inbox);
  const { sets, values, names } = parts;
  // follow's fields, as the conversation store's setThreadFields writes them (`#t_` names: never a clash).
  for (const [k, v] of Object.entries(m.thread)) {
    names[`#t_${k}`] = k;
    values[`:t_${k}`] = v;
    sets.push(`#t_${k} = :t_${k}`);
  }
  if (touch) {
    sets.push('lastMessageAt = :at', 'updatedAt = :at', 'gsi1sk = :g');
    // The preview is people's words only: the assistant's messages move the time, not the preview.
    const preview = peoplePreview(touch);
    if (preview !== undefined) {
      sets.push('preview = :p');
      values[':p'] = preview;
    }
    values[':at'] = touch.createdAt;
    values[':g'] = `${touch.createdAt}#${touch.conversationId}`;
  }
  if (pending) {
    sets.push('pendingCount = pendingCount + :d');
    values[':d'] = pending;
  }
  return {
    Update: {
      TableName: tableName,
      Key: { pk, sk: 'META' },
      ...updateOf(parts),
      ConditionExpression: touch ? 'attribute_exists(pk) AND lastMessageAt <= :at' : 'attribute_exists(pk)',
    },
  };
}

/**
 * One transaction (or one per 99 items, in order, for an unusually large turn). When the only condition that
 * failed is the preview moving backwards (a newer message got there first), the commit is retried without
 * that part, as the per-message store ignores it; any other lost condition is a conflict.
 *
 * Every transaction also checks that the conversation has no deletion tombstone (issue 19): an admin delete
 * writes it before erasing anything, so a turn that read the conversation before the delete and commits after
 * it writes nothing at all — no orphan records in the erased partition, no conversation brought back.
 */
async function commitPlan(t: DynamoTable, plan: CommitPlan, conversationId: string): Promise<void> {
  const guard = notDeleted(t.tableName, conversationId);
  const send = (items: TransactItem[]) =>
    t.doc.send(new TransactWriteCommand({ TransactItems: [...items, guard] }));
  for (let i = 0; i < plan.items.length; i += MAX_TRANSACT_ITEMS) {
    const chunk = plan.items.slice(i, i + MAX_TRANSACT_ITEMS);
    try {
      await send(chunk);
    } catch (e) {
      const failed = cancelledAt(e);
      if (!failed) throw e;
      if (failed.some((f) => f.at === chunk.length)) throw new ConversationDeletedError(conversationId);
      const touch = plan.touchAt === undefined ? -1 : plan.touchAt - i;
      if (failed.length === 1 && failed[0]?.at === touch && failed[0].code === 'ConditionalCheckFailed') {
        const rest = chunk.filter((_, j) => j !== touch);
        if (plan.withoutTouch) rest.push(plan.withoutTouch);
        if (rest.length) await sendOrDeleted(send, rest, conversationId);
        continue;
      }
      throw new RetryableConflictError('Another worker wrote this turn first', { failed });
    }
  }
}

/** The retry without the touch: a tombstone written in between still stops it. */
async function sendOrDeleted(
  send: (items: TransactItem[]) => Promise<unknown>,
  items: TransactItem[],
  conversationId: string,
) {
  try {
    await send(items);
  } catch (e) {
    if (cancelledAt(e)?.some((f) => f.at === items.length))
      throw new ConversationDeletedError(conversationId);
    throw e;
  }
}

/** Conversation-eraser.ts's tombstone key: present once a delete of the conversation has begun. */
function notDeleted(tableName: string, conversationId: string): TransactItem {
  return {
    ConditionCheck: {
      TableName: tableName,
      Key: tombstoneKey(conversationId),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/**
 * Which items failed and why, for a cancelled transaction; undefined for any other error. A concurrent
 * transaction on one of the items (`TransactionConflict`) is settled by trying again, like a lost condition.
 */
function cancelledAt(e: unknown): Array<{ at: number; code: string }> | undefined {
  const err = e as { name?: string; CancellationReasons?: Array<{ Code?: string }> };
  if (err?.name !== 'TransactionCanceledException') return undefined;
  const failed = (err.CancellationReasons ?? []).flatMap((r, at) =>
    r.Code && r.Code !== 'None' ? [{ at, code: r.Code }] : [],
  );
  return failed.length ? failed : [{ at: -1, code: 'unknown' }];
}

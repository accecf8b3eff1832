import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '@aws-sdk/lib-dynamodb';
import { deletionTombstone, type ErasedCounts } from '../../contracts/deletion';
import { UpstreamError } from '../../errors';
import type { ConversationEraser } from '../../ports/conversation-eraser';
import { type DynamoTable, isConditionFailed, stripKeys } from './base';
import { factPk } from './fact-keys';
import { conversationEventIds, scrubLedger } from './ledger-scrub';
import { tombstoneKey } from './tombstone-key';

/**
 * Issue 19's delete over the single table. The tombstone is its own item (`TOMBSTONE#<id>`, listed newest
 * first on gsi1 `TOMBSTONES`), outside the conversation's partition, so erasing the partition never takes it.
 * Order matters: trigger mappings first (a new text from the person starts a fresh conversation instead of
 * feeding this one), then META (the conversation leaves the inbox, and every conditional store write —
 * preview, status, counters — stops landing), then everything else, read again until empty so a write that
 * raced the delete is caught by the next pass. The ledger's entries of the conversation's events go last,
 * stripped to their ids (ledger-scrub.ts).
 */
/** BatchWriteItem's limit. */
const BATCH = 25;
/** Passes over a partition before giving up on writes that keep arriving (each pass reads it again). */
const PASSES = 5;

type Key = { pk: string; sk: string };

export function dynamoConversationEraser(
  t: DynamoTable,
  clock: () => Date = () => new Date(),
): ConversationEraser {
  return {
    async getTombstone(id) {
      const res = await t.doc.send(new GetCommand({ TableName: t.tableName, Key: tombstoneKey(id) }));
      return res.Item ? deletionTombstone.parse(stripKeys(res.Item)) : undefined;
    },
    async putTombstone(tomb) {
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: {
            ...tombstoneKey(tomb.conversationId),
            gsi1pk: 'TOMBSTONES',
            gsi1sk: `${tomb.deletedAt}#${tomb.conversationId}`,
            ...tomb,
          },
        }),
      );
    },
    async listTombstones({ limit }) {
      const res = await t.doc.send(
        new QueryCommand({
          TableName: t.tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :p',
          ExpressionAttributeValues: { ':p': 'TOMBSTONES' },
          ScanIndexForward: false,
          Limit: limit,
        }),
      );
      return (res.Items ?? []).map((i) => deletionTombstone.parse(stripKeys(i)));
    },
    eventIdsOf: (conversationId, keys, until) => conversationEventIds(t, conversationId, keys, until),
    async erase(conversationId, plan) {
      const counts = zeroCounts();
      counts.triggers = await deleteTriggers(t, conversationId, plan.triggerKeys);
      counts.conversation = (await deleteIfPresent(t, { pk: `CONV#${conversationId}`, sk: 'META' })) ? 1 : 0;
      for (const k of await erasePartition(t, `CONV#${conversationId}`)) bump(counts, kindOf(k.sk));
      counts.facts = (await erasePartition(t, factPk(conversationId))).length;
      for (const id of plan.mediaIds)
        if (await deleteIfPresent(t, { pk: `MEDIA#${id}`, sk: 'MEDIA' })) counts.media++;
      for (const id of plan.callIds)
        if (await deleteIfPresent(t, { pk: `CALL#${id}`, sk: 'CALL' })) counts.calls++;
      for (const id of plan.researchTaskIds)
        counts.research += (await erasePartition(t, `RESEARCH#${id}`)).length;
      counts.ledger = await scrubLedger(t, plan.eventIds, clock().toISOString());
      await deleteIdleCooldowns(t, plan.triggerKeys);
      return counts;
    },
  };
}

function zeroCounts(): ErasedCounts {
  return {
    conversation: 0,
    messages: 0,
    cards: 0,
    runs: 0,
    steps: 0,
    audit: 0,
    facts: 0,
    media: 0,
    triggers: 0,
    calls: 0,
    research: 0,
    ledger: 0,
    other: 0,
  };
}

type CountKey = keyof ErasedCounts;
const PREFIXES: Array<[string, CountKey]> = [
  ['MSG#', 'messages'],
  ['ACTION#', 'cards'],
  ['RUN#', 'runs'],
  ['STEP#', 'steps'],
  ['AUDIT#', 'audit'],
];
const kindOf = (sk: string): CountKey => PREFIXES.find(([p]) => sk.startsWith(p))?.[1] ?? 'other';
const bump = (c: ErasedCounts, k: CountKey) => {
  c[k]++;
};

/** A mapping is deleted only while it still points here: the person may already have a newer conversation. */
async function deleteTriggers(t: DynamoTable, conversationId: string, keys: string[]): Promise<number> {
  let n = 0;
  for (const key of keys) {
    try {
      await t.doc.send(
        new DeleteCommand({
          TableName: t.tableName,
          Key: { pk: `TRIGGER#${key}`, sk: 'TRIGGER' },
          ConditionExpression: 'conversationId = :c',
          ExpressionAttributeValues: { ':c': conversationId },
        }),
      );
      n++;
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
  }
  return n;
}

/**
 * The person's cooldown windows are keyed by their number or address. One with events still parked on it is
 * left alone: those texts are in flight (their delayed copies come back to it) and are not this delete's.
 */
async function deleteIdleCooldowns(t: DynamoTable, keys: string[]): Promise<void> {
  for (const key of keys) {
    try {
      await t.doc.send(
        new DeleteCommand({
          TableName: t.tableName,
          Key: { pk: `COOLDOWN#${key}`, sk: 'COOLDOWN' },
          ConditionExpression: 'attribute_not_exists(parked) OR size(parked) = :zero',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
    } catch (e) {
      if (!isConditionFailed(e)) throw e;
    }
  }
}

async function deleteIfPresent(t: DynamoTable, key: Key): Promise<boolean> {
  const res = await t.doc.send(
    new DeleteCommand({ TableName: t.tableName, Key: key, ReturnValues: 'ALL_OLD' }),
  );
  return res.Attributes !== undefined;
}

/** Every item of a partition, deleted in batches; read again until a pass finds nothing. Returns the keys. */
async function erasePartition(t: DynamoTable, pk: string): Promise<Key[]> {
  const erased: Key[] = [];
  for (let pass = 0; pass < PASSES; pass++) {
    const keys = await partitionKeys(t, pk);
    if (!keys.length) return erased;
    for (let i = 0; i < keys.length; i += BATCH) await batchDelete(t, keys.slice(i, i + BATCH));
    erased.push(...keys);
  }
  if ((await partitionKeys(t, pk)).length)
    throw new UpstreamError(`${pk} kept receiving writes during its deletion; run the delete again`);
  return erased;
}

async function partitionKeys(t: DynamoTable, pk: string): Promise<Key[]> {
  const out: Key[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const res = await t.doc.send(
      new QueryCommand({
        TableName: t.tableName,
        KeyConditionExpression: 'pk = :p',
        ExpressionAttributeValues: { ':p': pk },
        ProjectionExpression: 'pk, sk',
        ExclusiveStartKey: start,
      }),
    );
    for (const i of res.Items ?? []) out.push({ pk: String(i.pk), sk: String(i.sk) });
    start = res.LastEvaluatedKey;
  } while (start);
  return out;
}

/** BatchWriteItem may hand some deletes back (throttling): those are sent again, with a short backoff. */
async function batchDelete(t: DynamoTable, keys: Key[]): Promise<void> {
  let requests = keys.map((Key) => ({ DeleteRequest: { Key } }));
  for (let attempt = 0; requests.length; attempt++) {
    if (attempt > 8)
      throw new UpstreamError('DynamoDB kept returning unprocessed deletes; run the delete again');
    if (attempt) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
    const res = await t.doc.send(new BatchWriteCommand({ RequestItems: { [t.tableName]: requests } }));
    requests = (res.UnprocessedItems?.[t.tableName] ?? []) as typeof requests;
  }
}

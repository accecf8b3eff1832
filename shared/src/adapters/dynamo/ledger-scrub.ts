import { PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ERASED_LEDGER_KEY, ERASED_LEDGER_REASON } from '../../ports/event-ledger';
import { type DynamoTable, isConditionFailed, queryAll } from './base';
import { ledgerKeyIndex } from './event-ledger';

/**
 * The event ledger's part of issue 19's delete: "the ledger keeps event ids only". Every event keeps its id,
 * type, status and time (SPEC §6.3: each event still ends in a status), and loses its trigger key (a phone
 * number or address), its reason and its correlation id; history rows also leave the key index that led here.
 */
const ERASED_KEY = ERASED_LEDGER_KEY;
const ERASED_REASON = ERASED_LEDGER_REASON;

interface RunIds {
  id: string;
  trigger?: { eventIds?: string[] };
}

/** See ConversationEraser.eventIdsOf. */
export async function conversationEventIds(
  t: DynamoTable,
  conversationId: string,
  keys: string[],
  until: string,
): Promise<string[]> {
  const runs = await queryAll<RunIds>(t, {
    KeyConditionExpression: 'pk = :p AND begins_with(sk, :r)',
    ExpressionAttributeValues: { ':p': `CONV#${conversationId}`, ':r': 'RUN#' },
    ProjectionExpression: 'id, #trigger',
    ExpressionAttributeNames: { '#trigger': 'trigger' },
  });
  const ours = new Set(runs.map((r) => r.id));
  const ids = new Set(runs.flatMap((r) => r.trigger?.eventIds ?? []));
  for (const key of new Set(keys)) for (const id of await keyedEvents(t, key, until, ours)) ids.add(id);
  return [...ids];
}

/** Events recorded under `key` up to `until`, except those another conversation's run processed. */
async function keyedEvents(t: DynamoTable, key: string, until: string, ours: Set<string>) {
  const rows = await queryAll<{ eventId: string; runId?: string }>(t, {
    IndexName: 'gsi1',
    KeyConditionExpression: 'gsi1pk = :k AND gsi1sk <= :until',
    ExpressionAttributeValues: { ':k': ledgerKeyIndex(key), ':until': `${until}#\uffff` },
  });
  const foreign = new Set(rows.filter((r) => r.runId && !ours.has(r.runId)).map((r) => r.eventId));
  return rows.map((r) => r.eventId).filter((id) => !foreign.has(id));
}

/**
 * Strips each event's rows; returns how many events had something left to strip (a rerun counts none). An
 * event with no row yet (its turn still running when the delete began) gets a marker row, so whatever the
 * ledger records of it later is written stripped (event-ledger.ts).
 */
export async function scrubLedger(t: DynamoTable, eventIds: string[], at: string): Promise<number> {
  let scrubbed = 0;
  for (const eventId of new Set(eventIds)) {
    let rows = await unscrubbed(t, eventId);
    if (rows === 'none' && (await markErased(t, eventId, at))) continue;
    if (rows === 'none') rows = await unscrubbed(t, eventId);
    if (rows === 'none' || !rows.length) continue;
    for (const r of rows) await scrubRow(t, String(r.pk), String(r.sk));
    scrubbed++;
  }
  return scrubbed;
}

/** The event's rows that still hold a key; 'none' when the event has no row at all. */
async function unscrubbed(t: DynamoTable, eventId: string) {
  const res = await t.doc.send(
    new QueryCommand({
      TableName: t.tableName,
      KeyConditionExpression: 'pk = :p',
      ExpressionAttributeValues: { ':p': `EVENT#${eventId}` },
      ProjectionExpression: 'pk, sk, #key',
      ExpressionAttributeNames: { '#key': 'key' },
    }),
  );
  const items = res.Items ?? [];
  return items.length ? items.filter((r) => r.key !== ERASED_KEY) : ('none' as const);
}

/** False when a row appeared meanwhile (the ledger recorded the event): the caller strips that instead. */
async function markErased(t: DynamoTable, eventId: string, at: string): Promise<boolean> {
  try {
    await t.doc.send(
      new PutCommand({
        TableName: t.tableName,
        Item: {
          pk: `EVENT#${eventId}`,
          sk: 'EVENT',
          gsi1pk: `EVENTS#${at.slice(0, 10)}`,
          gsi1sk: `${at}#${eventId}`,
          eventId,
          type: ERASED_KEY,
          key: ERASED_KEY,
          status: 'received',
          reason: ERASED_REASON,
          at,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    return false;
  }
}

async function scrubRow(t: DynamoTable, pk: string, sk: string) {
  // The latest-status row stays on the day index (ids and times only); history rows leave the key index.
  const history = sk !== 'EVENT';
  await t.doc.send(
    new UpdateCommand({
      TableName: t.tableName,
      Key: { pk, sk },
      UpdateExpression: `SET #key = :k, reason = :r REMOVE correlationId${history ? ', gsi1pk, gsi1sk' : ''}`,
      ExpressionAttributeNames: { '#key': 'key' },
      ExpressionAttributeValues: { ':k': ERASED_KEY, ':r': ERASED_REASON },
    }),
  );
}

import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { ERASED_LEDGER_KEY, type EventLedger, erasedEntry, type LedgerEntry } from '../../ports/event-ledger';
import { type DynamoTable, isConditionFailed, queryAll, stripKeys } from './base';

/**
 * gsi1 partition of a key's history rows. An admin delete (issue 19) finds by it every event that came in under
 * the person's keys (`sms:+1…`), including the ones that never reached a run (a reaction, a duplicate), and
 * strips them to their ids (ledger-scrub.ts). Rides on the history row the ledger already writes: no extra
 * request per event.
 */
export const ledgerKeyIndex = (key: string) => `LEDGERKEY#${key}`;

/** pk EVENT#<id> holds the latest status; a history row per status keeps the full account of each delivery. */
export function dynamoEventLedger(t: DynamoTable): EventLedger {
  return {
    async record(entry) {
      const kept = await putLatest(t, entry);
      const erased = kept.key === ERASED_LEDGER_KEY;
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: {
            pk: `EVENT#${kept.eventId}`,
            sk: `HIST#${kept.at}#${kept.status}`,
            ...(erased ? {} : { gsi1pk: ledgerKeyIndex(kept.key), gsi1sk: `${kept.at}#${kept.eventId}` }),
            ...kept,
          },
        }),
      );
    },
    async get(eventId) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: { pk: `EVENT#${eventId}`, sk: 'EVENT' } }),
      );
      return stripKeys<LedgerEntry>(res.Item);
    },
    async listDay(day) {
      const out = await queryAll<LedgerEntry>(t, {
        IndexName: 'gsi1',
        KeyConditionExpression: 'gsi1pk = :p',
        ExpressionAttributeValues: { ':p': `EVENTS#${day}` },
      });
      return out;
    },
  };
}

/**
 * The latest-status row, unless the event belongs to a deleted conversation: then (the condition lost, one
 * request more, only then) the entry is written stripped. Returns the entry as written.
 */
async function putLatest(t: DynamoTable, entry: LedgerEntry): Promise<LedgerEntry> {
  const put = (e: LedgerEntry, condition: boolean) =>
    t.doc.send(
      new PutCommand({
        TableName: t.tableName,
        Item: {
          pk: `EVENT#${e.eventId}`,
          sk: 'EVENT',
          gsi1pk: `EVENTS#${e.at.slice(0, 10)}`,
          gsi1sk: `${e.at}#${e.eventId}`,
          ...e,
        },
        ...(condition
          ? {
              ConditionExpression: 'attribute_not_exists(#key) OR #key <> :erased',
              ExpressionAttributeNames: { '#key': 'key' },
              ExpressionAttributeValues: { ':erased': ERASED_LEDGER_KEY },
            }
          : {}),
      }),
    );
  try {
    await put(entry, true);
    return entry;
  } catch (e) {
    if (!isConditionFailed(e)) throw e;
    const stripped = erasedEntry(entry);
    await put(stripped, false);
    return stripped;
  }
}

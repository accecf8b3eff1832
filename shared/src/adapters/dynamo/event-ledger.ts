import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EventLedger, LedgerEntry } from '../../ports/event-ledger';
import { type DynamoTable, queryAll, stripKeys } from './base';

/**
 * gsi1 partition of a key's history rows. An admin delete (issue 19) finds by it every event that came in under
 * the person's keys (`sms:+1…`), including the ones that never reached a run (a reaction, a duplicate), and
 * strips them to their ids (conversation-eraser.ts). Rides on the history row the ledger already writes: no
 * extra request per event.
 */
export const ledgerKeyIndex = (key: string) => `LEDGERKEY#${key}`;

/** pk EVENT#<id> holds the latest status; a history row per status keeps the full account of each delivery. */
export function dynamoEventLedger(t: DynamoTable): EventLedger {
  return {
    async record(entry) {
      const day = entry.at.slice(0, 10);
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: {
            pk: `EVENT#${entry.eventId}`,
            sk: 'EVENT',
            gsi1pk: `EVENTS#${day}`,
            gsi1sk: `${entry.at}#${entry.eventId}`,
            ...entry,
          },
        }),
      );
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: {
            pk: `EVENT#${entry.eventId}`,
            sk: `HIST#${entry.at}#${entry.status}`,
            gsi1pk: ledgerKeyIndex(entry.key),
            gsi1sk: `${entry.at}#${entry.eventId}`,
            ...entry,
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

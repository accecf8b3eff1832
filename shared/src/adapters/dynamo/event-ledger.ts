import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { EventLedger, LedgerEntry } from '../../ports/event-ledger';
import { type DynamoTable, queryAll, stripKeys } from './base';

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
          Item: { pk: `EVENT#${entry.eventId}`, sk: `HIST#${entry.at}#${entry.status}`, ...entry },
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

import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { PendingIntent } from '../../contracts/conversations';
import type { IntentStore } from '../../ports/intent-store';
import { type DynamoTable, epochSeconds } from './base';

const key = (c: string) => ({ pk: `CONV#${c}`, sk: 'INTENT' });

/** The domain's ISO `expiresAt` is kept as `intent.expiresAt`; the item's numeric `expiresAt` drives TTL. */
export function dynamoIntentStore(t: DynamoTable): IntentStore {
  return {
    async get(c, now) {
      const res = await t.doc.send(
        new GetCommand({ TableName: t.tableName, Key: key(c), ConsistentRead: true }),
      );
      const intent = res.Item?.intent as PendingIntent | undefined;
      return intent && new Date(intent.expiresAt) > now ? intent : undefined;
    },
    async put(i) {
      await t.doc.send(
        new PutCommand({
          TableName: t.tableName,
          Item: { ...key(i.conversationId), intent: i, expiresAt: epochSeconds(new Date(i.expiresAt)) },
        }),
      );
    },
    async clear(c) {
      await t.doc.send(new DeleteCommand({ TableName: t.tableName, Key: key(c) }));
    },
  };
}

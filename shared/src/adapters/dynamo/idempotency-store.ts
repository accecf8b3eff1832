import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { IdempotencyStore } from '../../ports/idempotency-store';
import { type DynamoTable, epochSeconds, isConditionFailed } from './base';

export function dynamoIdempotencyStore(
  t: DynamoTable,
  clock: () => Date = () => new Date(),
): IdempotencyStore {
  return {
    async claim(key, ttlSeconds) {
      const now = clock();
      try {
        await t.doc.send(
          new PutCommand({
            TableName: t.tableName,
            Item: {
              pk: `IDEMP#${key}`,
              sk: 'IDEMP',
              claimedAt: now.toISOString(),
              expiresAt: epochSeconds(now) + ttlSeconds,
            },
            // Expiry is checked here because TTL deletion can lag by days.
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt < :now',
            ExpressionAttributeValues: { ':now': epochSeconds(now) },
          }),
        );
        return true;
      } catch (e) {
        if (isConditionFailed(e)) return false;
        throw e;
      }
    },
    async release(key) {
      await t.doc.send(
        new DeleteCommand({ TableName: t.tableName, Key: { pk: `IDEMP#${key}`, sk: 'IDEMP' } }),
      );
    },
  };
}

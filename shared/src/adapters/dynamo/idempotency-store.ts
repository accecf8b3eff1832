import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  makeIdempotent,
} from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context } from 'aws-lambda';
import type { IdempotencyStore } from '../../ports/idempotency-store';

/** Records live 7 days: longer than any provider's retry schedule. */
export const IDEMPOTENCY_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Powertools Idempotency on the single table: static partition `IDEMP` with the key's hash as the sort key,
 * the table's TTL attribute `expiresAt`, and an in-progress expiry from the invocation's remaining time, so
 * a delivery whose invocation died mid-way is not answered "duplicate" for 7 days.
 */
export function dynamoIdempotencyStore(t: { raw: DynamoDBClient; tableName: string }): IdempotencyStore {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: t.tableName,
    awsSdkV3Client: t.raw,
    keyAttr: 'pk',
    sortKeyAttr: 'sk',
    staticPkValue: 'IDEMP',
    expiryAttr: 'expiresAt',
    inProgressExpiryAttr: 'inProgressExpiresAt',
    statusAttr: 'status',
    dataAttr: 'data',
    validationKeyAttr: 'validation',
  });
  return {
    async once(key, work, opts = {}) {
      let replayed = false;
      const config = new IdempotencyConfig({
        expiresAfterSeconds: IDEMPOTENCY_TTL_SECONDS,
        responseHook: (response) => {
          replayed = true;
          return response;
        },
      });
      const { remainingMs } = opts;
      if (remainingMs) config.registerLambdaContext({ getRemainingTimeInMillis: remainingMs } as Context);
      const run = makeIdempotent(async (_key: string) => work(), { persistenceStore, config });
      try {
        const result = await run(key);
        return replayed ? { ran: false, reason: 'completed' } : { ran: true, result };
      } catch (e) {
        if (e instanceof IdempotencyAlreadyInProgressError) return { ran: false, reason: 'in_progress' };
        throw e;
      }
    },
  };
}

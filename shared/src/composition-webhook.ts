import { dynamoIdempotencyStore } from './adapters/dynamo/idempotency-store';
import { type Core, getCore } from './composition';

const stores = new WeakMap<Core, ReturnType<typeof dynamoIdempotencyStore>>();

/**
 * The OpenPhone webhook's graph: the shared core plus Powertools Idempotency, built here rather than in the
 * core so only this function's bundle carries it. One store per composed core (rebuilt when settings change).
 */
export async function getWebhookCore() {
  const core = await getCore('openphone-webhook');
  let idempotency = stores.get(core);
  if (!idempotency) {
    idempotency = dynamoIdempotencyStore({ raw: core.dynamo.raw, tableName: core.config.TABLE_NAME });
    stores.set(core, idempotency);
  }
  return { ...core, idempotency };
}

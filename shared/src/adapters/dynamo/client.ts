import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

// DynamoDB: no client-side abort. An aborted conditional claim that the server had already applied would be
// retried by the SDK into its own claim and answered "duplicate", and short connect limits failed deliveries
// under load in the 200-delivery local test; a hung request instead runs the invocation out, and the claim
// then expires with the invocation's remaining time (Powertools Idempotency).

/**
 * SQS: requests are aborted after 5 s, well below the webhook's 10 s timeout, so a hung enqueue fails, the
 * claim is released and Quo retries (a send retried after a timeout can at worst queue a copy, which the
 * worker's ledger recognises by event id).
 */
export const SQS_REQUEST_LIMITS = {
  requestTimeout: 5_000,
  // Without it the handler only logs a warning when the timeout passes and keeps waiting.
  throwOnRequestTimeout: true,
} as const;

export function makeDynamoClients(opts: { region: string; endpoint?: string }) {
  const raw = new DynamoDBClient({
    region: opts.region,
    ...(opts.endpoint
      ? { endpoint: opts.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  // The SDK's logger middleware walks every request and response through its sensitive-data filter to hand
  // the copy to the default no-op logger: about a sixth of a chat turn's own CPU (issue 14). We never give
  // the clients a logger (our adapters log what matters), so the middleware only costs.
  raw.middlewareStack.remove('loggerMiddleware');
  const doc = DynamoDBDocumentClient.from(raw, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: true },
  });
  return { raw, doc };
}

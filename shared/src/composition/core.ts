import { dynamoActionStore } from '../adapters/dynamo/action-store';
import { dynamoAuditLog } from '../adapters/dynamo/audit-log';
import { makeDynamoClients } from '../adapters/dynamo/client';
import { dynamoConversationStore } from '../adapters/dynamo/conversation-store';
import { dynamoCooldownStore } from '../adapters/dynamo/cooldown-store';
import { dynamoEventLedger } from '../adapters/dynamo/event-ledger';
import { dynamoIdempotencyStore } from '../adapters/dynamo/idempotency-store';
import { dynamoInstructionsStore } from '../adapters/dynamo/instructions-store';
import { dynamoIntentStore } from '../adapters/dynamo/intent-store';
import { dynamoRunStore } from '../adapters/dynamo/run-store';
import { sqsDeadLetterSink } from '../adapters/sqs-dead-letter';
import { makeSqsClient, sqsEventQueue } from '../adapters/sqs-event-queue';
import { type Config, loadConfig } from '../config';
import { makeLogger } from '../logger';

/**
 * Environment → config → adapters, once per cold start. Handlers call `getCore()` (and the worker its
 * richer graph) at module scope; nothing else in the code base reads process.env.
 */
export function buildCore(config: Config, serviceName: string) {
  const log = makeLogger(serviceName, config.LOG_LEVEL);
  const dynamo = makeDynamoClients({ region: config.AWS_REGION, endpoint: config.DYNAMODB_ENDPOINT });
  const table = { doc: dynamo.doc, tableName: config.TABLE_NAME };
  const sqs = makeSqsClient({ region: config.AWS_REGION, endpoint: config.SQS_ENDPOINT });
  const clock = () => new Date();
  return {
    config,
    log,
    clock,
    dynamo,
    table,
    sqs,
    queue: sqsEventQueue(sqs, config.EVENTS_QUEUE_URL),
    deadLetters: config.DLQ_URL ? sqsDeadLetterSink(sqs, config.DLQ_URL) : undefined,
    ledger: dynamoEventLedger(table),
    idempotency: dynamoIdempotencyStore(table, clock),
    cooldowns: dynamoCooldownStore(table),
    conversations: dynamoConversationStore(table),
    actions: dynamoActionStore(table),
    intents: dynamoIntentStore(table),
    runs: dynamoRunStore(table),
    audit: dynamoAuditLog(table, clock),
    instructions: dynamoInstructionsStore(table),
  };
}
export type Core = ReturnType<typeof buildCore>;

async function fetchSecret(arn: string): Promise<string> {
  // Imported lazily: only AWS deployments set SECRETS_ARN, and the module stays out of local cold starts.
  const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
  const res = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
  return res.SecretString ?? '{}';
}

const cache = new Map<string, Promise<Core>>();

export function getCore(
  serviceName: string,
  env: Record<string, string | undefined> = process.env,
): Promise<Core> {
  let p = cache.get(serviceName);
  if (!p) {
    p = loadConfig(env, fetchSecret).then((c) => buildCore(c, serviceName));
    cache.set(serviceName, p);
  }
  return p;
}

/** Tests and the local stack rebuild the graph after changing the environment. */
export function resetComposition() {
  cache.clear();
}

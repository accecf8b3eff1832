import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { startSqs } from '../../scripts/local/sqs';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { resetComposition } from '../../shared/src/composition/core';
import { freshTable } from '../helpers';

/** A test-only signing secret (base64 of 32 fixed bytes), never a real one. */
export const TEST_WEBHOOK_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

/** The API Gateway v2 (payload 2.0) event Lambda receives for `POST /webhooks/openphone`. */
export function apiGatewayEvent(input: {
  body?: string;
  headers?: Record<string, string>;
  isBase64Encoded?: boolean;
  path?: string;
}): APIGatewayProxyEventV2 {
  const path = input.path ?? '/webhooks/openphone';
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...input.headers },
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'test.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'test',
      http: { method: 'POST', path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: 'test' },
      requestId: `req-${now}-${Math.random().toString(36).slice(2)}`,
      routeKey: `POST ${path}`,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    ...(input.body !== undefined ? { body: input.body } : {}),
    isBase64Encoded: input.isBase64Encoded ?? false,
  };
}

export function parseResult(result: unknown): { status: number; body: Record<string, unknown> } {
  const r = result as APIGatewayProxyStructuredResultV2;
  return { status: r.statusCode ?? 0, body: JSON.parse(r.body ?? '{}') as Record<string, unknown> };
}

/** mulberry32: a tiny seeded PRNG, so a failing fuzz case can be replayed from its seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T,
    bool: (p = 0.5) => next() < p,
  };
}
export type Prng = ReturnType<typeof prng>;

export interface InboundBackends {
  tableName: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  queueUrl: string;
  sqs: SQSClient;
  /** Receives (and deletes) everything on the queue until it stays empty. */
  drain(queueUrl?: string): Promise<string[]>;
  stop(): Promise<void>;
}

/**
 * DynamoDB Local (the run's shared one, a fresh table) and an in-process fauxqs with one events queue,
 * with the environment the handlers' composition reads pointed at them.
 */
export async function startInboundBackends(env: Record<string, string> = {}): Promise<InboundBackends> {
  const table = await freshTable('inbound');
  const sqsServer = await startSqs();
  const sqs = makeSqsClient({ region: 'us-east-1', endpoint: sqsServer.endpoint });
  const q = await sqs.send(
    new CreateQueueCommand({ QueueName: `inbound-${Date.now()}`, Attributes: { VisibilityTimeout: '2' } }),
  );
  const queueUrl = q.QueueUrl as string;
  Object.assign(process.env, {
    STAGE: 'test',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    SQS_ENDPOINT: sqsServer.endpoint,
    EVENTS_QUEUE_URL: queueUrl,
    OPENPHONE_WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
    LOG_LEVEL: 'ERROR',
    ...env,
  });
  resetComposition();

  const drain = async (url = queueUrl) => {
    const bodies: string[] = [];
    for (let empty = 0; empty < 2; ) {
      const res = await sqs.send(
        new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
      );
      const messages = res.Messages ?? [];
      if (messages.length === 0) {
        empty += 1;
        continue;
      }
      empty = 0;
      bodies.push(...messages.map((m) => m.Body ?? ''));
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
        }),
      );
    }
    return bodies;
  };

  return {
    tableName: table.tableName,
    dynamoEndpoint: table.endpoint,
    sqsEndpoint: sqsServer.endpoint,
    queueUrl,
    sqs,
    drain,
    async stop() {
      sqs.destroy();
      table.raw.destroy();
      await sqsServer.stop();
      resetComposition();
    },
  };
}

export async function until<T>(
  fn: () => Promise<T | undefined | false>,
  ms = 20_000,
  every = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}

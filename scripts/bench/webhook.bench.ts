import { pathToFileURL } from 'node:url';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  PurgeQueueCommand,
  SendMessageCommand,
} from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { makeDynamoClients } from '../../shared/src/adapters/dynamo/client';
import { ensureTable } from '../../shared/src/adapters/dynamo/table';
import { makeSqsClient } from '../../shared/src/adapters/sqs-event-queue';
import { resetComposition } from '../../shared/src/composition/core';
import { verifyOpenPhoneSignature } from '../../shared/src/domain/openphone-signature';
import { startDynamoLocal } from '../local/dynamodb';
import { startSqs } from '../local/sqs';
import { buildMessageReceived, signDelivery } from '../simulate-sms';
import { type BenchRow, percentile } from './types';

/**
 * The OpenPhone webhook function (SPEC §7): handler time per delivery against DynamoDB Local and fauxqs,
 * beside a bare handler measured in the same run that does only what any webhook must — verify the
 * signature, put the idempotency item (conditional), send the SQS message — so what is compared is the
 * cost of our parsing, validation, urgency check and envelope, not the machine. The two are interleaved
 * delivery by delivery, so noise falls on both alike. Then 200 deliveries at once through the real handler:
 * every one must be answered 202 and land on the queue.
 *
 * Logs are at WARN (as in the local stack) so stdout writes do not swamp the figures.
 */
const SECRET = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;

function apiEvent(rawBody: string, headers: Record<string, string>): APIGatewayProxyEventV2 {
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: 'POST /webhooks/openphone',
    rawPath: '/webhooks/openphone',
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...headers },
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'bench.local',
      domainPrefix: 'bench',
      http: {
        method: 'POST',
        path: '/webhooks/openphone',
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: 'bench',
      },
      requestId: `bench-${now}-${Math.random()}`,
      routeKey: 'POST /webhooks/openphone',
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    body: rawBody,
    isBase64Encoded: false,
  };
}

let sender = 0;
/** A fresh, correctly signed delivery (distinct sender and ids, so every claim is a first one). */
function delivery(scheme: 'legacy' | 'standard') {
  sender += 1;
  const d = buildMessageReceived({
    from: `+1628${String(5_000_000 + sender).padStart(7, '0')}`,
    to: '+14155550100',
    text: 'Hi, the dishwasher in unit 3 is leaking onto the floor, can someone take a look this week?',
    scheme,
  });
  return apiEvent(d.rawBody, signDelivery({ rawBody: d.rawBody, secret: SECRET, scheme }));
}

export async function run(): Promise<BenchRow[]> {
  const samples = Number(process.env.BENCH_WEBHOOK_SAMPLES ?? 400);
  const warmup = 40;
  const dynamo = await startDynamoLocal();
  const sqsServer = await startSqs();
  const { raw, doc } = makeDynamoClients({ region: 'us-east-1', endpoint: dynamo.endpoint });
  const sqs = makeSqsClient({ region: 'us-east-1', endpoint: sqsServer.endpoint });
  const saved = { ...process.env };
  try {
    const tableName = 'bench-webhook';
    await ensureTable(raw, tableName);
    const queueUrl = (await sqs.send(new CreateQueueCommand({ QueueName: 'bench-webhook-events' })))
      .QueueUrl as string;
    Object.assign(process.env, {
      STAGE: 'test',
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME: tableName,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      SQS_ENDPOINT: sqsServer.endpoint,
      EVENTS_QUEUE_URL: queueUrl,
      OPENPHONE_WEBHOOK_SECRET: SECRET,
      LOG_LEVEL: 'WARN',
    });
    resetComposition();
    const { handler } = await import('../../functions/openphone-webhook');

    /** The bare webhook: verify, put, send — with the same SDK clients and the same backends. */
    const bare = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
      const rawBody = event.body ?? '';
      const verified = verifyOpenPhoneSignature({ rawBody, headers: event.headers, secret: SECRET });
      if (!verified.ok) return { statusCode: 401 };
      const now = Math.floor(Date.now() / 1000);
      await doc.send(
        new PutCommand({
          TableName: tableName,
          Item: {
            pk: `IDEMP#bare:${verified.deliveryId}`,
            sk: 'IDEMP',
            claimedAt: now,
            expiresAt: now + 604800,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: rawBody }));
      return { statusCode: 202 };
    };

    const time = async (fn: () => Promise<unknown>) => {
      const t0 = performance.now();
      await fn();
      return performance.now() - t0;
    };
    const real: number[] = [];
    const base: number[] = [];
    const failures: string[] = [];
    for (let i = 0; i < warmup + samples; i++) {
      const scheme = i % 2 ? 'legacy' : 'standard';
      const a = delivery(scheme);
      const b = delivery(scheme);
      // Alternate which goes first, so neither always runs on a warmer connection.
      const order = i % 4 < 2 ? (['real', 'bare'] as const) : (['bare', 'real'] as const);
      for (const which of order) {
        const ms = await time(async () => {
          const res = (
            which === 'real' ? await handler(a) : await bare(b)
          ) as APIGatewayProxyStructuredResultV2;
          if (res.statusCode !== 202) failures.push(`${which}: ${res.statusCode} ${res.body ?? ''}`);
        });
        if (i >= warmup) (which === 'real' ? real : base).push(ms);
      }
    }
    if (failures.length)
      throw new Error(`deliveries failed during the timing run: ${failures.slice(0, 3).join('; ')}`);

    await sqs.send(new PurgeQueueCommand({ QueueUrl: queueUrl }));
    const burst = Array.from({ length: 200 }, (_, i) => delivery(i % 2 ? 'legacy' : 'standard'));
    const t0 = performance.now();
    const answers = (await Promise.all(burst.map((e) => handler(e)))) as APIGatewayProxyStructuredResultV2[];
    const burstMs = performance.now() - t0;
    const errors = answers.filter((r) => r.statusCode !== 202).length;
    const attrs = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    const queued = Number(attrs.Attributes?.ApproximateNumberOfMessages ?? 0);

    const round = (n: number) => Math.round(n * 100) / 100;
    const p50 = percentile(real, 50);
    const p99 = percentile(real, 99);
    const b50 = percentile(base, 50);
    const b99 = percentile(base, 99);
    return [
      {
        name: 'webhook handler p50 vs bare verify+put+send',
        value: round(p50),
        unit: 'ms',
        baseline: round(b50),
        ratio: round(p50 / b50),
        target: '≤ 1.3×',
      },
      {
        name: 'webhook handler p99 vs bare verify+put+send',
        value: round(p99),
        unit: 'ms',
        baseline: round(b99),
        ratio: round(p99 / b99),
        target: 'p99 < 50 ms, ≤ 1.3×',
      },
      { name: `samples per handler (after ${warmup} warm-up)`, value: samples, unit: 'deliveries' },
      {
        name: '200 concurrent deliveries: answers other than 202',
        value: errors,
        unit: 'errors',
        target: '0',
      },
      {
        name: '200 concurrent deliveries: events missing from the queue',
        value: 200 - queued,
        unit: 'events',
        target: '0',
      },
      { name: '200 concurrent deliveries: wall time', value: round(burstMs), unit: 'ms' },
    ];
  } finally {
    resetComposition();
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
    sqs.destroy();
    raw.destroy();
    await sqsServer.stop();
    await dynamo.stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  run()
    .then((rows) => {
      console.table(rows);
      process.exit(0);
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}

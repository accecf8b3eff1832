import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export type SqsHandler = (event: SQSEvent) => Promise<SQSBatchResponse | undefined>;

/** Concurrent batches by default: Lambda's event source mapping runs several invocations at once too. */
export const DEFAULT_POLLER_CONCURRENCY = 5;

/**
 * The local stand-in for Lambda's SQS event source mapping: long-polls the queue, invokes the worker with a
 * real SQS batch event, deletes the records that succeeded and leaves `batchItemFailures` on the queue so
 * they are redelivered after the visibility timeout (and dead-lettered by the redrive policy).
 * `concurrency` pollers run side by side, each with its own batch in flight, as concurrent Lambda invocations
 * do: a slow batch does not hold up the messages behind it (research leaves really run in parallel).
 */
export function startSqsPoller(opts: {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: () => Promise<SqsHandler>;
  batchSize?: number;
  concurrency?: number;
  onError?: (e: unknown) => void;
}) {
  let running = true;
  const loops = Array.from({ length: Math.max(1, opts.concurrency ?? DEFAULT_POLLER_CONCURRENCY) }, () =>
    pollLoop(opts, () => running),
  );
  return {
    async stop() {
      running = false;
      await Promise.race([Promise.all(loops), new Promise((r) => setTimeout(r, 3000))]);
    },
  };
}

function pollLoop(opts: Parameters<typeof startSqsPoller>[0], running: () => boolean): Promise<void> {
  return (async () => {
    while (running()) {
      try {
        const res = await opts.client.send(
          new ReceiveMessageCommand({
            QueueUrl: opts.queueUrl,
            MaxNumberOfMessages: opts.batchSize ?? 10,
            WaitTimeSeconds: 1,
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        const messages = res.Messages ?? [];
        if (messages.length === 0) continue;
        const event: SQSEvent = {
          Records: messages.map((m) => ({
            messageId: m.MessageId ?? '',
            receiptHandle: m.ReceiptHandle ?? '',
            body: m.Body ?? '',
            attributes: (m.Attributes ?? {}) as SQSEvent['Records'][number]['attributes'],
            messageAttributes: lambdaMessageAttributes(m.MessageAttributes),
            md5OfBody: m.MD5OfBody ?? '',
            eventSource: 'aws:sqs',
            eventSourceARN: opts.queueArn,
            awsRegion: 'us-east-1',
          })),
        };
        const handler = await opts.handler();
        let failed = new Set<string>();
        try {
          const out = await handler(event);
          failed = new Set((out?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
        } catch (e) {
          // A thrown handler fails the whole batch, as on Lambda.
          failed = new Set(messages.map((m) => m.MessageId ?? ''));
          opts.onError?.(e);
        }
        const done = messages.filter((m) => !failed.has(m.MessageId ?? ''));
        if (done.length) {
          await opts.client.send(
            new DeleteMessageBatchCommand({
              QueueUrl: opts.queueUrl,
              Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle ?? '' })),
            }),
          );
        }
      } catch (e) {
        if (!running()) break;
        opts.onError?.(e);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
}

/** Message attributes as Lambda's SQS event carries them (camelCase, list fields present), e.g. correlationId. */
function lambdaMessageAttributes(
  attrs: Record<string, { DataType?: string; StringValue?: string }> | undefined,
): SQSEvent['Records'][number]['messageAttributes'] {
  const out: SQSEvent['Records'][number]['messageAttributes'] = {};
  for (const [name, a] of Object.entries(attrs ?? {})) {
    out[name] = {
      dataType: a.DataType ?? 'String',
      ...(a.StringValue !== undefined ? { stringValue: a.StringValue } : {}),
      stringListValues: [],
      binaryListValues: [],
    };
  }
  return out;
}

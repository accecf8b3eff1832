import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { EventEnvelope } from '../contracts/events';
import { UpstreamError } from '../errors';
import type { EventQueue } from '../ports/event-queue';
import { SQS_REQUEST_LIMITS } from './dynamo/client';

export function makeSqsClient(opts: { region: string; endpoint?: string }) {
  return new SQSClient({
    region: opts.region,
    requestHandler: SQS_REQUEST_LIMITS,
    ...(opts.endpoint
      ? { endpoint: opts.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}

/**
 * JSON with every non-ASCII character written as a \u escape: SQS refuses some code points (U+FFFE,
 * U+FFFF, unpaired surrogates) and fauxqs refuses emoji; escaped, the body is plain ASCII and parses back
 * to exactly the same text.
 */
export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007f-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/**
 * Standard (not FIFO) queue: per-message DelaySeconds is what lets the cooldown park an event until its
 * window ends, and FIFO queues do not support it. Ordering and duplicates are handled by the worker
 * (event ledger, cooldown, conditional step writes), so the queue need not provide them.
 */
export function sqsEventQueue(client: SQSClient, queueUrl: string): EventQueue {
  const attributes = (event: EventEnvelope) => ({
    type: { DataType: 'String', StringValue: event.type },
    correlationId: { DataType: 'String', StringValue: event.correlationId },
  });
  return {
    async sendBatch(events) {
      // SQS takes at most 10 entries per request; entries are independent, so a failed one is reported in
      // `Failed` beside the sent ones (AWS SQS API reference, SendMessageBatch).
      for (let i = 0; i < events.length; i += 10) {
        const chunk = events.slice(i, i + 10);
        let failed: string[];
        try {
          const res = await client.send(
            new SendMessageBatchCommand({
              QueueUrl: queueUrl,
              Entries: chunk.map((e, n) => ({
                Id: String(n),
                MessageBody: asciiJson(e),
                MessageAttributes: attributes(e),
              })),
            }),
          );
          failed = (res.Failed ?? []).map((f) => `${chunk[Number(f.Id)]?.id}: ${f.Code} ${f.Message ?? ''}`);
        } catch (e) {
          throw new UpstreamError(`Could not enqueue ${chunk.length} events`, { cause: e });
        }
        if (failed.length) throw new UpstreamError(`Could not enqueue ${failed.join('; ')}`);
      }
    },
    async send(event, opts) {
      try {
        await client.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: asciiJson(event),
            DelaySeconds: Math.max(0, Math.min(900, Math.ceil(opts?.delaySeconds ?? 0))),
            MessageAttributes: attributes(event),
          }),
        );
      } catch (e) {
        throw new UpstreamError(`Could not enqueue ${event.type}`, { cause: e });
      }
    },
  };
}

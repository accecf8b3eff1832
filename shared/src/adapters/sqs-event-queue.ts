import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { UpstreamError } from '../errors';
import type { EventQueue } from '../ports/event-queue';

export function makeSqsClient(opts: { region: string; endpoint?: string }) {
  return new SQSClient({
    region: opts.region,
    ...(opts.endpoint
      ? { endpoint: opts.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
}

/**
 * Standard (not FIFO) queue: per-message DelaySeconds is what lets the cooldown park an event until its
 * window ends, and FIFO queues do not support it. Ordering and duplicates are handled by the worker
 * (event ledger, cooldown, conditional step writes), so the queue need not provide them.
 */
export function sqsEventQueue(client: SQSClient, queueUrl: string): EventQueue {
  return {
    async send(event, opts) {
      try {
        await client.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: JSON.stringify(event),
            DelaySeconds: Math.max(0, Math.min(900, Math.ceil(opts?.delaySeconds ?? 0))),
            MessageAttributes: {
              type: { DataType: 'String', StringValue: event.type },
              correlationId: { DataType: 'String', StringValue: event.correlationId },
            },
          }),
        );
      } catch (e) {
        throw new UpstreamError(`Could not enqueue ${event.type}`, { cause: e });
      }
    },
  };
}

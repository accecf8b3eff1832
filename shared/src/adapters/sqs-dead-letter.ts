import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DeadLetterSink } from '../ports/dead-letter';

export function sqsDeadLetterSink(client: SQSClient, dlqUrl: string): DeadLetterSink {
  return {
    async send(body, reason) {
      await client.send(
        new SendMessageCommand({
          QueueUrl: dlqUrl,
          MessageBody: body.length > 200_000 ? body.slice(0, 200_000) : body,
          MessageAttributes: { reason: { DataType: 'String', StringValue: reason.slice(0, 1000) } },
        }),
      );
    },
  };
}

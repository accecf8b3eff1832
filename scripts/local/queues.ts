import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';

/**
 * Creates the events queue and its DLQ through the SQS API, with the same attributes the CDK stack sets:
 * a redrive policy (maxReceiveCount) and a visibility timeout of at least 6× the worker's timeout.
 */
export async function ensureQueues(
  client: SQSClient,
  opts: { prefix: string; visibilityTimeoutSeconds: number; maxReceiveCount: number },
) {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: `${opts.prefix}-events-dlq`,
      Attributes: { MessageRetentionPeriod: '1209600' },
    }),
  );
  const dlqUrl = dlq.QueueUrl as string;
  const dlqAttrs = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
  );
  const dlqArn = dlqAttrs.Attributes?.QueueArn as string;
  const q = await client.send(
    new CreateQueueCommand({
      QueueName: `${opts.prefix}-events`,
      Attributes: {
        VisibilityTimeout: String(opts.visibilityTimeoutSeconds),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount: opts.maxReceiveCount }),
      },
    }),
  );
  const queueUrl = q.QueueUrl as string;
  const attrs = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  return { queueUrl, queueArn: attrs.Attributes?.QueueArn as string, dlqUrl, dlqArn };
}

import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { getWorkerDeps } from '../shared/src/composition/worker';
import { withLogContext } from '../shared/src/logger';
import { consumeRecord } from '../shared/src/use-cases/consume-record';

/** SQS → one use case per record; failed records are reported back so only they are redelivered. */
export const handler = async (event: SQSEvent, context?: Context) => {
  const deps = await getWorkerDeps();
  if (context) deps.core.log.addContext(context);
  const recordHandler = (record: SQSRecord) => {
    const receiveCount = Number(record.attributes?.ApproximateReceiveCount ?? 0);
    if (receiveCount <= 1) deps.core.metrics.count('EventsReceived');
    // The correlation id travels on the message (set by the queue adapter), so the webhook's delivery, this
    // record and every tool call it makes share it in the logs — records of one batch run concurrently.
    return withLogContext(
      {
        correlationId: record.messageAttributes?.correlationId?.stringValue,
        eventType: record.messageAttributes?.type?.stringValue,
        messageId: record.messageId,
      },
      () => consumeRecord(deps, { body: record.body, messageId: record.messageId, receiveCount }),
    );
  };
  // One processor per invocation: it keeps the batch's successes and failures on itself, and the local
  // poller (like any host running invocations side by side) may call this handler concurrently.
  const processor = new BatchProcessor(EventType.SQS);
  try {
    return await processPartialResponse(event, recordHandler, processor, { throwOnFullBatchFailure: false });
  } finally {
    deps.core.metrics.flush();
  }
};
